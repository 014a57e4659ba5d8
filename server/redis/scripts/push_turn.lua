-- A seated user's turn in a room, as the pushes see it (server/archive/push.py).
-- KEYS[1] push:{room}:<user>   ARGV[1] version   ARGV[2] "1" the user owes at it, "0" not
-- ARGV[3] seconds the mark lives
-- The mark is "<version>:<0|1>". A step older than the mark changes nothing (steps may be
-- looked at out of order, on several nodes). Returns 1 only when the user's turn begins at
-- this version (owing now, and not owing at the mark before it): one caller, cluster-wide.
local mark = redis.call('GET', KEYS[1])
local version = tonumber(ARGV[1])
local was = 0
if mark then
  local sep = string.find(mark, ':', 1, true)
  if tonumber(string.sub(mark, 1, sep - 1)) >= version then
    return 0
  end
  was = tonumber(string.sub(mark, sep + 1))
end
redis.call('SET', KEYS[1], ARGV[1] .. ':' .. ARGV[2], 'EX', ARGV[3])
if ARGV[2] == '1' and was == 0 then
  return 1
end
return 0
