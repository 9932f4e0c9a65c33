-- Replace a seat's token hash (revoke: new_hash '') iff it is still old_hash (services/gamestate/store.py:
-- Store.set_token). The token-index entries are in the game's slot (keys.py). In an ended game the new token's
-- entry expires with the game's other tokens (ttl_after_end ms after its last commit). A revocation (a seat handed
-- to a bot: resigned, abandoned) keeps the revoked hash as 'gone:<seat>', so a later write with that token is told
-- the seat's game is over rather than that the token is unknown (Store.gone_seat). 1 done, 0 not old_hash.
-- KEYS: meta old_token new_token
-- ARGV: seat old_hash new_hash entry ttl_after_end
local field = 'tok:' .. A.seat
local current = redis.call('HGET', K.meta, field) or ''
if current ~= A.old_hash then return 0 end
if A.old_hash ~= '' then redis.call('DEL', K.old_token) end
if A.new_hash == '' then
  redis.call('HDEL', K.meta, field)
  redis.call('HSET', K.meta, 'gone:' .. A.seat, A.old_hash)
  return 1
end
redis.call('HSET', K.meta, field, A.new_hash)
local status = redis.call('HGET', K.meta, 'status')
if status and status ~= 'active' then
  local updated = tonumber(redis.call('HGET', K.meta, 'updated_ms') or '0')
  redis.call('SET', K.new_token, A.entry, 'PXAT', updated + tonumber(A.ttl_after_end))
else
  redis.call('SET', K.new_token, A.entry)
end
return 1
