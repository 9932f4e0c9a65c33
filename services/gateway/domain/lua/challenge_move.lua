-- Move a challenge from status `required` to `new` (services/gateway/domain/challenges.py). Returns "ok" if the status
-- was moved, else the status it has (a lapsed pending one is marked expired first, and then "expired" is
-- returned unless the move was the expiry itself).
-- KEYS: challenge due
-- ARGV: required new now
local status = redis.call('HGET', K.challenge, 'status')
if not status then return false end
if status == 'pending' and tonumber(redis.call('HGET', K.challenge, 'expires_ms')) <= tonumber(A.now) then
  redis.call('HSET', K.challenge, 'status', 'expired', 'closed_ms', A.now)
  redis.call('ZREM', K.due, redis.call('HGET', K.challenge, 'id'))
  if A.new == 'expired' then return 'ok' end
  return 'expired'
end
if status ~= A.required then return status end
redis.call('HSET', K.challenge, 'status', A.new, 'closed_ms', A.now)
if A.new ~= 'pending' and A.new ~= 'accepting' then
  redis.call('ZREM', K.due, redis.call('HGET', K.challenge, 'id'))
end
return 'ok'
