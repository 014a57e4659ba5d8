-- A new game state, all or nothing: compare-and-set on the room's version (and, for the
-- start, on the lobby revision), the state written, the log entry appended, the seal
-- cleared, the publication made.
-- KEYS: room, log, seal, presence, chat
-- ARGV: expected version, expected rev ('' = any), channel, payload, log id, ttl (0 = none),
--       number of hash pairs, seats to look up ('0,2': is any taken over?),
--       hash pairs..., log pairs...
-- Returns 0 (lost), 1 (won), 2 (won, and one of the seats looked up is taken over: away).
if redis.call('HGET', KEYS[1], 'version') ~= ARGV[1] then return 0 end
if ARGV[2] ~= '' and redis.call('HGET', KEYS[1], 'rev') ~= ARGV[2] then return 0 end
local n = tonumber(ARGV[7])
local at = 9
local pairs = {}
for i = at, at + 2 * n - 1 do pairs[#pairs + 1] = ARGV[i] end
redis.call('HSET', KEYS[1], unpack(pairs))
local fields = {}
for i = at + 2 * n, #ARGV do fields[#fields + 1] = ARGV[i] end
redis.call('XADD', KEYS[2], ARGV[5], unpack(fields))
redis.call('DEL', KEYS[3])
local ttl = tonumber(ARGV[6])
if ttl > 0 then
  for i = 1, #KEYS do redis.call('EXPIRE', KEYS[i], ttl) end
else
  -- A game under way never expires (an idle lobby did: see touch_lobby.lua).
  for i = 1, #KEYS do redis.call('PERSIST', KEYS[i]) end
end
redis.call('PUBLISH', ARGV[3], ARGV[4])
local result = 1
for seat in string.gmatch(ARGV[8], '[^,]+') do
  if redis.call('HEXISTS', KEYS[4], 'away:' .. seat) == 1 then result = 2 end
end
return result
