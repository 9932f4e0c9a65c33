-- The queued, alive tickets of `ids` (services/matchmaker/store.py): a JSON array with [id, player_id, game,
-- players, options, bots_after_s, created_ms, rating, time_control] per ticket (one string to parse instead of a
-- hash per ticket). On the way it drops from the queue the ids whose ticket is gone, and marks expired (and
-- drops) the queued tickets whose TTL lapsed. pairs: ticket_1, alive_1, ticket_2, alive_2, ...; ids: JSON array.
-- KEYS: queue pairs...
-- ARGV: ids
local ids = cjson.decode(A.ids)
local out = {}
for i, id in ipairs(ids) do
  local t = K.pairs[2 * i - 1]
  local f = redis.call('HMGET', t, 'status', 'player_id', 'game', 'players', 'options', 'bots_after_s',
                       'created_ms', 'rating', 'time_control')
  if not f[1] then
    if redis.call('EXISTS', t) == 0 then redis.call('ZREM', K.queue, id) end
  elseif f[1] == 'queued' then
    if redis.call('EXISTS', K.pairs[2 * i]) == 1 then
      out[#out + 1] = {id, f[2], f[3], f[4], f[5], f[6], f[7], f[8], f[9] or 'null'}
    else
      redis.call('HSET', t, 'status', 'expired')
      redis.call('ZREM', K.queue, id)
    end
  end
end
if #out == 0 then return '[]' end
return cjson.encode(out)
