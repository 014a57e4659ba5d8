-- KEYS: a bucket hash ; ARGV: now (ms), tokens per second, burst, ttl (s).
-- A token bucket shared by every node: take one token if there is one. 0 if taken, else
-- the milliseconds until one will be there (at least 1; the ttl's if none ever comes).
local now = tonumber(ARGV[1])
local rate = tonumber(ARGV[2])
local burst = tonumber(ARGV[3])
local saved = redis.call('HMGET', KEYS[1], 't', 'at')
local tokens = tonumber(saved[1]) or burst
local at = tonumber(saved[2]) or now
if now > at then tokens = math.min(burst, tokens + (now - at) / 1000 * rate) end
local wait = 0
if tokens >= 1 then
  tokens = tokens - 1
elseif rate > 0 then
  wait = math.max(1, math.ceil((1 - tokens) / rate * 1000))
else
  wait = tonumber(ARGV[4]) * 1000
end
redis.call('HSET', KEYS[1], 't', tostring(tokens), 'at', tostring(math.max(now, at)))
redis.call('EXPIRE', KEYS[1], tonumber(ARGV[4]))
return wait
