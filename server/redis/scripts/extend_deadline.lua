-- KEYS: room, seal. ARGV: version, stage ('move'|'commit'|'reveal'), old due, new due,
-- channel, payload. Moves the due time of the version's current stage from old to new,
-- if nothing moved on since it was read; publishes the notice. 1 if done.
if redis.call('HGET', KEYS[1], 'status') ~= 'playing' then return 0 end
if redis.call('HGET', KEYS[1], 'version') ~= ARGV[1] then return 0 end
local key, field = KEYS[1], 'deadline'
if ARGV[2] == 'reveal' then
  key, field = KEYS[2], 'open_by'
elseif ARGV[2] == 'commit' and redis.call('HGET', KEYS[2], 'open') == '1' then
  return 0
end
if redis.call('HGET', key, field) ~= ARGV[3] then return 0 end
redis.call('HSET', key, field, ARGV[4])
redis.call('PUBLISH', ARGV[5], ARGV[6])
return 1
