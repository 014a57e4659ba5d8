-- KEYS: a sorted set (clock or nodes) ; ARGV: now, lease end, limit (all epoch ms).
-- The due members, each leased to the caller: its score moves to the lease end, so no other
-- node sees it due before then. One script: exactly one claimer per member and lease.
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[3]))
for _, member in ipairs(due) do redis.call('ZADD', KEYS[1], 'XX', ARGV[2], member) end
return due
