-- Reserve a new game against its owner's quotas (services/gamestate/quotas.py).
-- KEYS: owner_games owner_creations
-- ARGV: meta_head active_limit bot_seat_limit hour_limit hour_left game_id bot_seats now grace
-- owner_games: hash game id -> "<bot seats>:<reserved ms>"; owner_creations: the owner's creations this hour;
-- meta_head: "<prefix>game:{"; hour_left: seconds until the hour ends; grace: ms a pending creation may last.
local owned = redis.call('HGETALL', K.owner_games)
local games, bots = 0, 0
for i = 1, #owned, 2 do
  local seats, at = string.match(owned[i + 1], '^(%d+):(%d+)$')
  local status = redis.call('HGET', A.meta_head .. owned[i] .. '}:meta', 'status')
  -- a game without metadata is being written (a batch stores its games after reserving them all), unless its
  -- reservation is older than the grace: then its creation failed and it never existed
  local pending = (not status) and (tonumber(A.now) - tonumber(at) < tonumber(A.grace))
  if status == 'active' or pending then
    games = games + 1
    bots = bots + tonumber(seats)
  else
    redis.call('HDEL', K.owner_games, owned[i])
  end
end
if games + 1 > tonumber(A.active_limit) then return {'active_games', games} end
if bots + tonumber(A.bot_seats) > tonumber(A.bot_seat_limit) then return {'bot_seats', bots} end
local made = tonumber(redis.call('GET', K.owner_creations) or '0')
if made + 1 > tonumber(A.hour_limit) then return {'creations_per_hour', made} end
redis.call('INCR', K.owner_creations)
redis.call('EXPIRE', K.owner_creations, A.hour_left)
redis.call('HSET', K.owner_games, A.game_id, A.bot_seats .. ':' .. A.now)
return {'ok', 0}
