-- KEYS: room. ARGV: paused_at, by, channel, payload. 1 if the playing room was not paused.
if redis.call('HGET', KEYS[1], 'status') ~= 'playing' then return 0 end
if redis.call('HSETNX', KEYS[1], 'paused_at', ARGV[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], 'paused_by', ARGV[2])
redis.call('PUBLISH', ARGV[3], ARGV[4])
return 1
