-- KEYS: a quota's sorted set of rooms ; ARGV: limit (0: none), the room, when (score), ttl
-- (s; 0: none), then the rooms the caller found over or gone.
-- Check and take a place in one step: the rooms found gone are dropped, then the room is
-- added only while fewer than limit are held, so requests at once cannot all pass a check
-- made before any of them was noted. 1 if the room holds a place now.
local key = KEYS[1]
for i = 5, #ARGV, 500 do
  redis.call('ZREM', key, unpack(ARGV, i, math.min(i + 499, #ARGV)))
end
local limit = tonumber(ARGV[1])
if limit > 0 and not redis.call('ZSCORE', key, ARGV[2]) and redis.call('ZCARD', key) >= limit then
  return 0
end
redis.call('ZADD', key, ARGV[3], ARGV[2])
local ttl = tonumber(ARGV[4])
if ttl > 0 then redis.call('EXPIRE', key, ttl) end
return 1
