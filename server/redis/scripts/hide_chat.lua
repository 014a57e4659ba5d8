-- KEYS: chat ; ARGV: message id, channel, payload. Take the message with that id out of the
-- room's kept chat and publish the payload; the message as it was kept, or false.
for _, raw in ipairs(redis.call('LRANGE', KEYS[1], 0, -1)) do
  local ok, message = pcall(cjson.decode, raw)
  if ok and type(message) == 'table' and message['id'] == ARGV[1] then
    redis.call('LREM', KEYS[1], 1, raw)
    redis.call('PUBLISH', ARGV[2], ARGV[3])
    return raw
  end
end
return false
