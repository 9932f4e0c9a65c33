-- Sets aside a finished game the archive refused (services/gamestate/archiver.py): the refusal recorded and its
-- attempts counted, its next automatic retry in the quarantine (the wait doubles at each attempt, up to
-- longest), this archiver's lease released (an operator's retry may take it at once). Returns the attempts so
-- far; 0 if the game is no longer in Redis.
-- KEYS: meta refused quarantined lease
-- ARGV: game_id now first_retry longest holder refusal...
-- first_retry: ms (0: none but an operator's); longest: the longest wait (ms); holder: the lease owner;
-- refusal: field/value pairs of the refusal.
if redis.call('EXISTS', K.meta) == 0 then return 0 end
local n = redis.call('HINCRBY', K.refused, 'attempts', 1)
redis.call('HSETNX', K.refused, 'first_ms', A.now)
redis.call('HSET', K.refused, 'last_ms', A.now, unpack(A.refusal))
local first = tonumber(A.first_retry)
local at = '+inf'
if first > 0 then
  at = tonumber(A.now) + math.floor(math.min(first * 2 ^ math.min(n - 1, 40), tonumber(A.longest)))
end
redis.call('ZADD', K.quarantined, at, A.game_id)
if redis.call('GET', K.lease) == A.holder then redis.call('DEL', K.lease) end
return n
