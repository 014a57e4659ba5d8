-- Lobby changes (seats, ready flags): compare-and-set on the room's revision; published.
-- KEYS: room ; ARGV: expected rev, channel, payload, expected status ('' = any), hash pairs...
if redis.call('HGET', KEYS[1], 'rev') ~= ARGV[1] then return 0 end
if ARGV[4] ~= '' and redis.call('HGET', KEYS[1], 'status') ~= ARGV[4] then return 0 end
local pairs = {}
for i = 5, #ARGV do pairs[#pairs + 1] = ARGV[i] end
if #pairs > 0 then redis.call('HSET', KEYS[1], unpack(pairs)) end
redis.call('HINCRBY', KEYS[1], 'rev', 1)
redis.call('PUBLISH', ARGV[2], ARGV[3])
return 1
