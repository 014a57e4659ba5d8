-- After opening.lua. KEYS: room, seal ; ARGV: those of opening.lua.
-- The reveal that completes the set gets {'all', the seal hash}: its caller resolves the
-- phase from it without reading the seal again.
local result = store_opening(KEYS[2])
if result ~= 'stored' and result ~= 'repeat' then return result end
if complete(KEYS[2]) then return {'all', redis.call('HGETALL', KEYS[2])} end
return 'ok'
