-- KEYS: clock buckets ; ARGV: now, lease end, limit (all epoch ms).
-- claim.lua on each bucket in turn, then the earliest score left on any of them ('' if they
-- are all empty): when to look again. One call per look, whatever the number of buckets
-- (on a cluster: one call per bucket, each bucket in its own slot).
local out = {}
local earliest, text = nil, ''
for k = 1, #KEYS do
  local due = redis.call('ZRANGEBYSCORE', KEYS[k], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[3]))
  for _, member in ipairs(due) do redis.call('ZADD', KEYS[k], 'XX', ARGV[2], member) end
  out[#out + 1] = due
  local first = redis.call('ZRANGE', KEYS[k], 0, 0, 'WITHSCORES')
  if first[2] and (earliest == nil or tonumber(first[2]) < earliest) then
    earliest, text = tonumber(first[2]), first[2]
  end
end
out[#out + 1] = text
return out
