-- Forgets lapsed entries of one player's open set (the sender's or the recipient's), then takes a place in it
-- ("ok") or answers "full" (services/gateway/domain/challenges.py). One account, one slot: the caller reserves the
-- sender's place, then the recipient's, and gives the sender's back when the recipient's is full.
-- KEYS: open
-- ARGV: now challenge_id expires max ttl
-- expires: the challenge's expiry ms; max: 0 for no bound; ttl: seconds.
redis.call('ZREMRANGEBYSCORE', K.open, '-inf', A.now)
if tonumber(A.max) > 0 and redis.call('ZCARD', K.open) >= tonumber(A.max) then return 'full' end
redis.call('ZADD', K.open, A.expires, A.challenge_id)
redis.call('EXPIRE', K.open, A.ttl)
return 'ok'
