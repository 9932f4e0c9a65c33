-- The compare-and-set of every change to a game (services/gamestate/store.py: Store.commit).
-- KEYS: meta log snap events idem active finished clock bot_wait idem_index touched changes
-- ARGV: expected entry snapshot state digest status to_act scores winners now deadline game_id
-- ARGV: idem idem_value idem_ttl kind actor events token_field token_hash bot_due token_prefix tokens_expire
-- ARGV: places outbox_maxlen seats extra...
-- finished: every ended game; idem_index: the game's idempotency keys, for archival; touched: active game id ->
-- ms of its last commit (the inactivity sweep). snapshot and idem are '1' or '0'; status is active | finished |
-- aborted; token_field is '' for no token check; bot_due is '0' for no bot wait; tokens_expire: when the seat
-- tokens of a game this commit finishes expire (ms); extra: more meta field/value pairs. changes: the bucket's
-- outbox (services/gamestate/outbox.py), one entry per version, trimmed to about outbox_maxlen; places: the
-- result's places, '[]' unless the commit finishes the game. seats: the game's number of seats; a commit that
-- went in answers {'ok', version, the token hash of seat 0, 1, ... as Redis holds them (nil: none)}, so the
-- service's cached metadata is exactly Redis's at the commit (services/gamestate/store.py, Store.recent_meta).
if A.idem == '1' then
  local prev = redis.call('GET', K.idem)
  if prev then return {'dup', prev} end
end
-- one read of everything the script needs from the metadata (a command each costs the primary more than the
-- fields): the version, who was to act (the outbox's consumer tells new turns apart), what the outbox entry
-- carries, whether the game is on the clock index, its creation time and the checked seat's token hash
local fields = {'version', 'to_act', 'game', 'seat_players', 'rated', 'deadlines', 'deadline_ms', 'created_ms'}
local seats = tonumber(A.seats)
for s = 0, seats - 1 do fields[#fields + 1] = 'tok:' .. s end
if A.token_field ~= '' then fields[#fields + 1] = A.token_field end
local cur = redis.call('HMGET', K.meta, unpack(fields))
if not cur[1] then return {'missing', ''} end
if cur[1] ~= A.expected then return {'stale', cur[1]} end
if A.token_field ~= '' and cur[#fields] ~= A.token_hash then return {'token', ''} end
local nv = tonumber(cur[1]) + 1
redis.call('RPUSH', K.log, A.entry)
if A.snapshot == '1' then
  redis.call('HSET', K.snap, 'state', A.state, 'version', nv, 'digest', A.digest)
end
-- the metadata in one HSET, the extra fields last (so they win, as they did written after it); the outbox entry
-- carries the fields as this commit leaves them
local set = {'version', nv, 'digest', A.digest, 'status', A.status, 'to_act', A.to_act, 'scores', A.scores,
  'winners', A.winners, 'updated_ms', A.now, 'deadline_ms', A.deadline}
local carried = {game = 3, seat_players = 4, rated = 5, deadlines = 6}
for i = 1, #A.extra, 2 do
  set[#set + 1] = A.extra[i]
  set[#set + 1] = A.extra[i + 1]
  local at = carried[A.extra[i]]
  if at then cur[at] = A.extra[i + 1] end
end
redis.call('HSET', K.meta, unpack(set))
redis.call('XADD', K.events, nv .. '-1', 'v', nv, 'kind', A.kind, 'actor', A.actor, 'events', A.events,
  'status', A.status, 'to_act', A.to_act, 'scores', A.scores, 'winners', A.winners)
redis.call('XADD', K.changes, 'MAXLEN', '~', A.outbox_maxlen, '*', 'g', A.game_id, 'v', nv, 'kind', A.kind,
  'actor', A.actor, 'status', A.status, 'to_act', A.to_act, 'before', cur[2] or '[]', 'scores', A.scores,
  'winners', A.winners, 'places', A.places, 'game', cur[3] or '', 'seats', cur[4] or '{}', 'rated', cur[5] or '0',
  'deadlines', cur[6] or '{}', 'at', A.now)
-- on the clock index exactly while the metadata's deadline_ms is not 0 (this script and create.lua write both)
local on_clock = cur[7] and cur[7] ~= '0'
local ended = A.status ~= 'active'
if ended then
  redis.call('ZREM', K.active, A.game_id)
  redis.call('ZADD', K.finished, cur[8], A.game_id)
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
  elseif on_clock then
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
local reply = {'ok', tostring(nv)}
for s = 1, seats do reply[s + 2] = cur[8 + s] end
return reply
