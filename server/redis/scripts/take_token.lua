-- KEYS: a bucket hash ; ARGV: now (ms), tokens per second, burst, ttl (s).
-- A token bucket shared by every node: take one token if there is one. 1 if taken.
local now = tonumber(ARGV[1])
local burst = tonumber(ARGV[3])
local saved = redis.call('HMGET', KEYS[1], 't', 'at')
local tokens = tonumber(saved[1]) or burst
local at = tonumber(saved[2]) or now
if now > at then tokens = math.min(burst, tokens + (now - at) / 1000 * tonumber(ARGV[2])) end
local taken = 0
if tokens >= 1 then
  tokens = tokens - 1
  taken = 1
end
redis.call('HSET', KEYS[1], 't', tostring(tokens), 'at', tostring(math.max(now, at)))
redis.call('EXPIRE', KEYS[1], tonumber(ARGV[4]))
return taken
