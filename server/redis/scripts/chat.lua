-- KEYS: room, chat ; ARGV: message (JSON), keep (how many), channel, payload, now (ms).
-- Keep the message in the room's capped chat list and publish it; the list expires with
-- the room (a finished room's keys have a TTL). The room's last activity is now.
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], 'active_at', ARGV[5])
redis.call('RPUSH', KEYS[2], ARGV[1])
redis.call('LTRIM', KEYS[2], -tonumber(ARGV[2]), -1)
local ttl = redis.call('TTL', KEYS[1])
if ttl > 0 then redis.call('EXPIRE', KEYS[2], ttl) end
redis.call('PUBLISH', ARGV[3], ARGV[4])
return 1
