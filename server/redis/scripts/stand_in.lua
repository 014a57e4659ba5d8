-- KEYS: presence ; ARGV: seat, now. The host lets the room's stand-in play a seat a slow
-- game waits for ('held'): the seat is marked taken over ('away') in its place, as after the
-- grace time in a room with deadlines; its player gets it back the moment they return. 0 if
-- the seat is not held (its player came back, or it never was).
if redis.call('HEXISTS', KEYS[1], 'held:' .. ARGV[1]) == 0 then return 0 end
redis.call('HDEL', KEYS[1], 'held:' .. ARGV[1])
redis.call('HSET', KEYS[1], 'away:' .. ARGV[1], ARGV[2])
return 1
