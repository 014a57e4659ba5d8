-- KEYS: nodes:draining ; ARGV: instance, its drain JSON, force ('1' or '0'), the other live
-- instances... Mark the instance draining unless it drains already (0) or -- not forced --
-- no other live instance would be left serving (-1: the last serving node). 1 if marked.
-- Two admins draining two nodes at once are serialized here: one of them is refused.
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 1 then return 0 end
if ARGV[3] ~= '1' then
  local serving = 0
  for i = 4, #ARGV do
    if ARGV[i] ~= ARGV[1] and redis.call('HEXISTS', KEYS[1], ARGV[i]) == 0 then
      serving = serving + 1
    end
  end
  if serving == 0 then return -1 end
end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
return 1
