-- Forgets lapsed entries of the sender's and the recipient's open sets, then takes a place in both or answers
-- which side is full ("sender" or "recipient") (services/gateway/domain/challenges.py).
-- KEYS: sender recipient
-- ARGV: now challenge_id expires max_sender max_recipient ttl
-- expires: the challenge's expiry ms; max_sender, max_recipient: 0 for no bound; ttl: seconds.
redis.call('ZREMRANGEBYSCORE', K.sender, '-inf', A.now)
redis.call('ZREMRANGEBYSCORE', K.recipient, '-inf', A.now)
if tonumber(A.max_sender) > 0 and redis.call('ZCARD', K.sender) >= tonumber(A.max_sender) then return 'sender' end
if tonumber(A.max_recipient) > 0 and redis.call('ZCARD', K.recipient) >= tonumber(A.max_recipient) then
  return 'recipient'
end
for _, key in ipairs({K.sender, K.recipient}) do
  redis.call('ZADD', key, A.expires, A.challenge_id)
  redis.call('EXPIRE', key, A.ttl)
end
return 'ok'
