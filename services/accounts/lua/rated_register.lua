-- Mark games of ONE bucket as rated (services/accounts/ratings.py): the bucket's pending set and its games' hashes
-- share the bucket's slot. games: rated:<id> per game; rows: JSON array of
-- [game_id, game, [seat, entity, seat, entity, ...]] per game, in the same order.
-- KEYS: pending games...
-- ARGV: rows
local rows = cjson.decode(A.rows)
for i, g in ipairs(rows) do
  redis.call('HSET', K.games[i], 'game', g[2], unpack(g[3]))
  redis.call('SADD', K.pending, g[1])
end
return #rows
