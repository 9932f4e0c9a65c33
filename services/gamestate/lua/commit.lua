-- The compare-and-set of every change to a game (services/gamestate/store.py: Store.commit).
-- KEYS: meta log snap events idem active finished clock bot_wait idem_index touched
-- ARGV: expected entry snapshot state digest status to_act scores winners now deadline game_id
-- ARGV: idem idem_value idem_ttl kind actor events token_field token_hash bot_due token_prefix tokens_expire
-- ARGV: extra...
-- finished: every ended game; idem_index: the game's idempotency keys, for archival; touched: active game id ->
-- ms of its last commit (the inactivity sweep). snapshot and idem are '1' or '0'; status is active | finished |
-- aborted; token_field is '' for no token check; bot_due is '0' for no bot wait; tokens_expire: when the seat
-- tokens of a game this commit finishes expire (ms); extra: more meta field/value pairs.
if A.idem == '1' then
  local prev = redis.call('GET', K.idem)
  if prev then return {'dup', prev} end
end
local cur = redis.call('HGET', K.meta, 'version')
if not cur then return {'missing', ''} end
if cur ~= A.expected then return {'stale', cur} end
if A.token_field ~= '' and redis.call('HGET', K.meta, A.token_field) ~= A.token_hash then return {'token', ''} end
local nv = tonumber(cur) + 1
redis.call('RPUSH', K.log, A.entry)
if A.snapshot == '1' then
  redis.call('HSET', K.snap, 'state', A.state, 'version', nv, 'digest', A.digest)
end
redis.call('HSET', K.meta, 'version', nv, 'digest', A.digest, 'status', A.status, 'to_act', A.to_act,
  'scores', A.scores, 'winners', A.winners, 'updated_ms', A.now, 'deadline_ms', A.deadline)
for i = 1, #A.extra, 2 do
  redis.call('HSET', K.meta, A.extra[i], A.extra[i + 1])
end
redis.call('XADD', K.events, nv .. '-1', 'v', nv, 'kind', A.kind, 'actor', A.actor, 'events', A.events,
  'status', A.status, 'to_act', A.to_act, 'scores', A.scores, 'winners', A.winners)
local ended = A.status ~= 'active'
if ended then
  local created = redis.call('HGET', K.meta, 'created_ms')
  redis.call('ZREM', K.active, A.game_id)
  redis.call('ZADD', K.finished, created, A.game_id)
  redis.call('ZREM', K.clock, A.game_id)
  redis.call('ZREM', K.touched, A.game_id)
  -- the seats' token-index entries expire with their tokens (named from the hashes: only this script knows
  -- them for sure, a rotation may have changed one since the caller last read the metadata)
  local meta = redis.call('HGETALL', K.meta)
  for i = 1, #meta, 2 do
    if string.sub(meta[i], 1, 4) == 'tok:' then redis.call('PEXPIREAT', A.token_prefix .. meta[i + 1], A.tokens_expire) end
  end
else
  redis.call('ZADD', K.touched, A.now, A.game_id)
  if A.deadline ~= '0' then
    redis.call('ZADD', K.clock, A.deadline, A.game_id)
  else
    redis.call('ZREM', K.clock, A.game_id)
  end
end
if A.idem == '1' then
  redis.call('SET', K.idem, A.idem_value, 'EX', A.idem_ttl)
  redis.call('SADD', K.idem_index, K.idem)  -- archival deletes the game's keys by this index
end
if A.bot_due ~= '0' and not ended then
  redis.call('ZADD', K.bot_wait, A.bot_due, A.game_id)
end
return {'ok', tostring(nv)}
