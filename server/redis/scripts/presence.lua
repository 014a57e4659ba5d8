-- KEYS: presence, room ; ARGV: conn id, seat ('-' for none), joining ('1') or leaving ('0'), now
-- Returns how many sockets the seat still has (after the change); -1 when leaving with a
-- socket that was not (or no longer) there -- a second reaper, a late close: nothing to do.
local function change()
  if ARGV[3] == '1' then
    redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
    if ARGV[2] ~= '-' then redis.call('HDEL', KEYS[1], 'drop:' .. ARGV[2], 'away:' .. ARGV[2], 'held:' .. ARGV[2]) end
  elseif redis.call('HDEL', KEYS[1], ARGV[1]) == 0 then
    return -1
  end
  if ARGV[2] == '-' then return 0 end
  local count = 0
  local all = redis.call('HGETALL', KEYS[1])
  for i = 1, #all, 2 do
    local f = all[i]
    local head = string.sub(f, 1, 5)
    if head ~= 'drop:' and head ~= 'away:' and head ~= 'held:'
       and all[i + 1] == ARGV[2] then count = count + 1 end
  end
  if count == 0 and ARGV[3] == '0' then
    redis.call('HSET', KEYS[1], 'drop:' .. ARGV[2], ARGV[4])
  end
  return count
end
local result = change()
-- The presence hash lives as long as its room (an idle lobby or a finished room expires).
local ttl = redis.call('TTL', KEYS[2])
if ttl > 0 then
  redis.call('EXPIRE', KEYS[1], ttl)
elseif ttl == -2 then
  redis.call('DEL', KEYS[1])
end
return result
