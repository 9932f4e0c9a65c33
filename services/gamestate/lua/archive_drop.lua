-- Deletes a finished game's keys iff Redis still holds exactly what was archived (services/gamestate/archiver.py).
-- 1 done, 0 already gone, -1 another digest (never drop it), -2 not finished.
-- KEYS: meta log snap events idem_index lease active finished clock bot_wait quarantined refused
-- ARGV: game_id token_head digest
-- token_head: the token keys' prefix; digest: the one committed to the archive.
local digest = redis.call('HGET', K.meta, 'digest')
if not digest then
  redis.call('ZREM', K.finished, A.game_id)
  redis.call('ZREM', K.quarantined, A.game_id)
  redis.call('DEL', K.refused)
  return 0
end
if digest ~= A.digest then return -1 end
if redis.call('HGET', K.meta, 'status') == 'active' then return -2 end
local fields = redis.call('HGETALL', K.meta)
for i = 1, #fields, 2 do
  if string.sub(fields[i], 1, 4) == 'tok:' then
    local tkey = A.token_head .. fields[i + 1]
    if redis.call('GET', tkey) == A.game_id .. ':' .. string.sub(fields[i], 5) then redis.call('DEL', tkey) end
  end
end
for _, k in ipairs(redis.call('SMEMBERS', K.idem_index)) do redis.call('DEL', k) end
redis.call('DEL', K.meta, K.log, K.snap, K.events, K.idem_index, K.lease, K.refused)
for _, index in ipairs({K.active, K.finished, K.clock, K.bot_wait, K.quarantined}) do
  redis.call('ZREM', index, A.game_id)
end
return 1
