-- One seat's digest of a sealed phase; the commit that completes the set opens the phase,
-- exactly once.
-- KEYS: room, seal, presence ; ARGV: version, phase, seat, digest, seats owed, channel,
--                         committed payload, open payload, open_by ('' = no reveal deadline),
--                         proxy ('1': a stand-in committed for the absent player: p:<seat>),
--                         nonce (of this call: its own repeat -- a retry after a lost reply --
--                         is answered as the first time, n:<seat>),
--                         the phase's seats to look up ('0,2'),
--                         the device's "<kid> <signature>" of the commit ('' = unsigned: s:<seat>)
-- The commit that opens the phase answers 'open-stand-in' rather than 'open' when one of
-- those seats is taken over (away:<seat> in presence) or a stand-in committed for it
-- (p:<seat>): only then must the bots hear of the phase (no second look afterwards).
local function opened()
  for seat in string.gmatch(ARGV[12], '[^,]+') do
    if redis.call('HEXISTS', KEYS[3], 'away:' .. seat) == 1
       or redis.call('HEXISTS', KEYS[2], 'p:' .. seat) == 1 then return 'open-stand-in' end
  end
  return 'open'
end
if redis.call('HGET', KEYS[1], 'version') ~= ARGV[1]
   or redis.call('HGET', KEYS[1], 'status') ~= 'playing' then return 'wrong-phase' end
if redis.call('HGET', KEYS[2], 'phase') ~= ARGV[2] then
  redis.call('DEL', KEYS[2])
  redis.call('HSET', KEYS[2], 'phase', ARGV[2], 'commits', 0, 'reveals', 0)
end
if redis.call('HSETNX', KEYS[2], 'c:' .. ARGV[3], ARGV[4]) == 0 then
  if redis.call('HGET', KEYS[2], 'n:' .. ARGV[3]) == ARGV[11] then
    if redis.call('HGET', KEYS[2], 'open') == '1' then return opened() end
    return 'ok'
  end
  return 'already-committed'
end
redis.call('HSET', KEYS[2], 'n:' .. ARGV[3], ARGV[11])
if ARGV[10] == '1' then redis.call('HSET', KEYS[2], 'p:' .. ARGV[3], '1') end
if ARGV[13] ~= nil and ARGV[13] ~= '' then redis.call('HSET', KEYS[2], 's:' .. ARGV[3], ARGV[13]) end
local count = redis.call('HINCRBY', KEYS[2], 'commits', 1)
redis.call('PUBLISH', ARGV[6], ARGV[7])
if count == tonumber(ARGV[5]) then
  redis.call('HSET', KEYS[2], 'open', '1')
  if ARGV[9] ~= '' then redis.call('HSET', KEYS[2], 'open_by', ARGV[9]) end
  redis.call('PUBLISH', ARGV[6], ARGV[8])
  return opened()
end
return 'ok'
