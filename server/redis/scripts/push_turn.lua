-- A seated user's turn in a room, as the pushes see it (server/archive/push.py).
-- KEYS[1] push:{room}:<user>   ARGV[1] version   ARGV[2] "1" the user owes at it, "0" not
-- ARGV[3] seconds the mark lives
-- The mark is "<version>:<0|1>:<since>": since, the version at which the user's present
-- turn began (0 when they owe nothing). A step older than the mark changes nothing (steps
-- may be looked at out of order, on several nodes). Returns {began, since}: began is 1
-- only when the user's turn begins at this version (owing now, and not owing at the mark
-- before it): one caller, cluster-wide; since names the turn (0: none) as the mark has it.
local mark = redis.call('GET', KEYS[1])
local version = tonumber(ARGV[1])
local was = 0
local since = 0
if mark then
  local a = string.find(mark, ':', 1, true)
  local b = string.find(mark, ':', a + 1, true)
  local at = tonumber(string.sub(mark, 1, a - 1))
  if b then
    was = tonumber(string.sub(mark, a + 1, b - 1))
    since = tonumber(string.sub(mark, b + 1))
  else
    was = tonumber(string.sub(mark, a + 1))
    since = was == 1 and at or 0
  end
  if at >= version then
    return {0, since}
  end
end
local began = 0
if ARGV[2] == '1' then
  if was == 0 then
    began = 1
    since = version
  end
else
  since = 0
end
redis.call('SET', KEYS[1], ARGV[1] .. ':' .. ARGV[2] .. ':' .. since, 'EX', ARGV[3])
return {began, since}
