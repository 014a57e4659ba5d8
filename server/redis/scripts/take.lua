-- KEYS: a sorted set ; ARGV: member, latest score, lease end.
-- Lease one member to the caller before it is due -- unless its score is past ``latest``
-- (a claimer leased it already: it is theirs) or it is gone. 1 if taken.
local score = redis.call('ZSCORE', KEYS[1], ARGV[1])
if score and tonumber(score) <= tonumber(ARGV[2]) then
  redis.call('ZADD', KEYS[1], 'XX', ARGV[3], ARGV[1])
  return 1
end
return 0
