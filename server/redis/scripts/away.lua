-- KEYS: presence ; ARGV: seat, drop stamp, now, mark ('away' or 'held'). The grace time of a
-- seat is over: mark it taken over ('away'), or held for its player ('held': a slow game
-- waits for a player its pushes reach), unless its player came back (the drop stamp changed
-- or went away) or the seat is marked either way already.
if redis.call('HGET', KEYS[1], 'drop:' .. ARGV[1]) ~= ARGV[2] then return 0 end
if redis.call('HEXISTS', KEYS[1], 'away:' .. ARGV[1]) == 1 then return 0 end
if redis.call('HEXISTS', KEYS[1], 'held:' .. ARGV[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], (ARGV[4] or 'away') .. ':' .. ARGV[1], ARGV[3])
return 1
