-- Cancel a queued ticket (services/matchmaker/store.py). Returns the status after the call.
-- KEYS: ticket alive queue
-- ARGV: ticket_id
local status = redis.call('HGET', K.ticket, 'status')
if not status then return false end
if status == 'queued' then
  if redis.call('EXISTS', K.alive) == 1 then
    redis.call('HSET', K.ticket, 'status', 'cancelled')
    redis.call('DEL', K.alive)
    status = 'cancelled'
  else
    redis.call('HSET', K.ticket, 'status', 'expired')
    status = 'expired'
  end
  redis.call('ZREM', K.queue, A.ticket_id)
end
return status
