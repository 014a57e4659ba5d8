-- KEYS: a sorted set ; ARGV: member, the lease end it was claimed with.
-- Done with a claimed member: remove it, unless it was claimed again or re-armed since.
local score = redis.call('ZSCORE', KEYS[1], ARGV[1])
if score and tonumber(score) == tonumber(ARGV[2]) then
  return redis.call('ZREM', KEYS[1], ARGV[1])
end
return 0
