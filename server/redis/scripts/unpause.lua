-- KEYS: room, seal. ARGV: paused_at, version, stage, old due, new due, channel, payload.
-- Ends the pause begun at paused_at and moves the current stage's due time (unless there
-- is none: old due ''), if the version did not move on since it was read. 1 if done.
if redis.call('HGET', KEYS[1], 'paused_at') ~= ARGV[1] then return 0 end
if redis.call('HGET', KEYS[1], 'version') ~= ARGV[2] then return 0 end
if ARGV[4] ~= '' then
  local key, field = KEYS[1], 'deadline'
  if ARGV[3] == 'reveal' then key, field = KEYS[2], 'open_by' end
  if redis.call('HGET', key, field) ~= ARGV[4] then return 0 end
  redis.call('HSET', key, field, ARGV[5])
end
redis.call('HDEL', KEYS[1], 'paused_at', 'paused_by')
redis.call('PUBLISH', ARGV[6], ARGV[7])
return 1
