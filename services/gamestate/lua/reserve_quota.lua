-- Reserve a new game against one account's quotas (services/gamestate/quotas.py). Only the account's own keys (one
-- slot): the caller has read the state of the games the book lists (they live in other slots) and passes verdicts.
-- KEYS: owner_games owner_creations
-- ARGV: active_limit bot_seat_limit hour_limit hour_left game_id bot_seats now grace seen...
-- owner_games: hash game id -> "<bot seats>:<reserved ms>"; owner_creations: the account's charges this hour;
-- hour_left: seconds until the hour ends; grace: ms a reserved game may lack its metadata (being written);
-- seen: triples (game id, 'ended' | 'missing' | 'active', bot seats charged now) from the caller's read.
for i = 1, #A.seen, 3 do
  local id, verdict = A.seen[i], A.seen[i + 1]
  local entry = redis.call('HGET', K.owner_games, id)
  if entry then
    local at = string.match(entry, ':(%d+)$')
    if verdict == 'ended' or (verdict == 'missing' and tonumber(A.now) - tonumber(at) >= tonumber(A.grace)) then
      redis.call('HDEL', K.owner_games, id)  -- released: ended, or its creation failed and it never existed
    elseif verdict == 'active' then
      redis.call('HSET', K.owner_games, id, A.seen[i + 2] .. ':' .. at)  -- zombie seats charged since
    end
  end
end
local owned = redis.call('HGETALL', K.owner_games)
local games, bots = 0, 0
for i = 1, #owned, 2 do
  games = games + 1
  bots = bots + tonumber(string.match(owned[i + 1], '^(%d+):'))
end
if redis.call('HEXISTS', K.owner_games, A.game_id) == 1 then return {'ok', games} end  -- a retried reservation
if games + 1 > tonumber(A.active_limit) then return {'active_games', games} end
if bots + tonumber(A.bot_seats) > tonumber(A.bot_seat_limit) then return {'bot_seats', bots} end
local made = tonumber(redis.call('GET', K.owner_creations) or '0')
if made + 1 > tonumber(A.hour_limit) then return {'creations_per_hour', made} end
redis.call('INCR', K.owner_creations)
redis.call('EXPIRE', K.owner_creations, A.hour_left)
redis.call('HSET', K.owner_games, A.game_id, A.bot_seats .. ':' .. A.now)
return {'ok', games + 1}
