-- KEYS: room ; ARGV: field, value ('' = delete it), channel, payload ('' = none).
-- One bookkeeping field of an existing room (a ban, a mute, its announcement), published;
-- nothing for a room that is gone (so no stub hash without a TTL is left behind). 1 if done.
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
if ARGV[2] == '' then
  redis.call('HDEL', KEYS[1], ARGV[1])
else
  redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
end
if ARGV[4] ~= '' then redis.call('PUBLISH', ARGV[3], ARGV[4]) end
return 1
