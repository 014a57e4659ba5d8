-- KEYS: room, presence, chat ; ARGV: seconds. A room in the lobby lives that much longer.
if redis.call('HGET', KEYS[1], 'status') ~= 'lobby' then return 0 end
for i = 1, #KEYS do redis.call('EXPIRE', KEYS[i], tonumber(ARGV[1])) end
return 1
