-- The store of one seat's opening, put before reveal.lua and reveal_step.lua. KEYS[1]: the
-- room; ARGV[1..6]: version, phase, seat, opening, seats owed, nonce (m:<seat>: its own
-- repeat -- a retry after a lost reply -- is told 'repeat'). Returns 'stored', 'repeat', or a
-- refusal ('wrong-phase', 'not-open', 'already-revealed'); ``complete`` says whether every
-- seat owed has opened.
local function store_opening(seal)
  if redis.call('HGET', KEYS[1], 'version') ~= ARGV[1]
     or redis.call('HGET', seal, 'phase') ~= ARGV[2] then return 'wrong-phase' end
  if redis.call('HGET', seal, 'open') ~= '1' then return 'not-open' end
  if redis.call('HSETNX', seal, 'r:' .. ARGV[3], ARGV[4]) == 0 then
    if redis.call('HGET', seal, 'm:' .. ARGV[3]) == ARGV[6] then return 'repeat' end
    return 'already-revealed'
  end
  redis.call('HSET', seal, 'm:' .. ARGV[3], ARGV[6])
  redis.call('HINCRBY', seal, 'reveals', 1)
  return 'stored'
end
local function complete(seal)
  return tonumber(redis.call('HGET', seal, 'reveals')) == tonumber(ARGV[5])
end
