-- After opening.lua. KEYS: room, log, seal, presence, chat (those of write_step.lua)
-- ARGV: those of opening.lua, then write_step.lua's (read by it as STEP: the same script
-- text, put in place of the marker in step()).
-- The reveal that its caller knows completes the set (every other seat's opening was in the
-- seal it read), with the step that resolves the phase, computed from those openings: one
-- round trip instead of a reveal, then a step. Returns the reveal's refusals as reveal.lua
-- does, 'ok' if the set is not complete after all (nothing stepped: the seal was not as
-- read), or {'stepped', write_step.lua's result}. The room keeps the nonce of the reveal that
-- resolved its last phase (``resolved_by``): a retry of this call after a lost reply, which
-- finds the phase over, is answered as the first time.
if redis.call('HGET', KEYS[1], 'resolved_by') == ARGV[6]
   and redis.call('HGET', KEYS[1], 'version') == tostring(tonumber(ARGV[1]) + 1) then
  return {'stepped', 1}
end
local result = store_opening(KEYS[3])
if result ~= 'stored' and result ~= 'repeat' then return result end
if not complete(KEYS[3]) then return 'ok' end
local STEP = {}
for i = 7, #ARGV do STEP[#STEP + 1] = ARGV[i] end
local function step()
--[[ write_step.lua, its ARGV read as STEP ]]
end
local won = step()
if won ~= 0 then redis.call('HSET', KEYS[1], 'resolved_by', ARGV[6]) end
return {'stepped', won}
