-- KEYS: room ; ARGV: game number, when (ISO text), how many times to keep, channel, payload.
-- An admin looked at the hidden state of the room's game ARGV[1]: the room's ``inspected``
-- field (JSON {game, count, at: [the last ARGV[3] times]}) counts it and keeps when, and
-- the room's players are told. Nothing if the room is gone or plays another game since
-- (0); else the count of looks at this game.
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
if (redis.call('HGET', KEYS[1], 'game_no') or '0') ~= ARGV[1] then return 0 end
local game = tonumber(ARGV[1])
local kept = redis.call('HGET', KEYS[1], 'inspected')
local notes = {game = game, count = 0, at = {}}
if kept then
  local ok, old = pcall(cjson.decode, kept)
  if ok and type(old) == 'table' and old.game == game and type(old.at) == 'table' then
    notes.count = tonumber(old.count) or #old.at
    notes.at = old.at
  end
end
notes.count = notes.count + 1
table.insert(notes.at, ARGV[2])
local keep = tonumber(ARGV[3])
while #notes.at > keep do table.remove(notes.at, 1) end
redis.call('HSET', KEYS[1], 'inspected', cjson.encode(notes))
if ARGV[5] ~= '' then redis.call('PUBLISH', ARGV[4], ARGV[5]) end
return notes.count
