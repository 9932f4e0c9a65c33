-- Writes new games (metadata, snapshot at version 0, stream entry 0-1, token index, indexes) atomically
-- (services/gamestate/store.py: Store.create_many).
-- KEYS: active finished clock bot_wait touched changes games...
-- ARGV: now outbox_maxlen records snapshots...
-- games: per game its meta, snap and events keys, then the token-index keys of every game's human seats in turn.
-- records: JSON array with per game {id, m: meta field/value list, d: digest, e: stream entry field/value list,
-- f: finished?, c: deadline ms or "0", b: bot-wait due ms or "0", t: "<id>:<seat>" per token key, x: when a
-- finished game's token keys expire (ms), o: its outbox entry field/value list}; snapshots: per game its snapshot
-- state text. changes: the bucket's outbox (services/gamestate/outbox.py): version 0 of each game, as a commit
-- appends every later version.
local games = cjson.decode(A.records)
local tk = 3 * #games
for i, g in ipairs(games) do
  local base = 3 * (i - 1)
  redis.call('HSET', K.games[base + 1], unpack(g.m))
  redis.call('HSET', K.games[base + 2], 'state', A.snapshots[i], 'version', '0', 'digest', g.d)
  redis.call('XADD', K.games[base + 3], '0-1', unpack(g.e))
  redis.call('XADD', K.changes, 'MAXLEN', '~', A.outbox_maxlen, '*', unpack(g.o))
  for _, owner in ipairs(g.t) do
    tk = tk + 1
    redis.call('SET', K.games[tk], owner)
    if g.f then redis.call('PEXPIREAT', K.games[tk], g.x) end
  end
  if g.f then
    redis.call('ZADD', K.finished, A.now, g.id)
  else
    redis.call('ZADD', K.active, A.now, g.id)
    redis.call('ZADD', K.touched, A.now, g.id)
  end
  if g.c ~= '0' then
    redis.call('ZADD', K.clock, g.c, g.id)
  end
  if g.b ~= '0' and not g.f then
    redis.call('ZADD', K.bot_wait, g.b, g.id)
  end
end
return #games
