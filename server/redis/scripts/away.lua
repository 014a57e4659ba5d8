-- KEYS: presence ; ARGV: seat, drop stamp, now. The grace time of a seat is over: mark it
-- taken over, unless its player came back (the drop stamp changed or went away).
if redis.call('HGET', KEYS[1], 'drop:' .. ARGV[1]) ~= ARGV[2] then return 0 end
if redis.call('HEXISTS', KEYS[1], 'away:' .. ARGV[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 'away:' .. ARGV[1], ARGV[3])
return 1
