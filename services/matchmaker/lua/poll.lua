-- Poll a ticket (services/matchmaker/store.py). Returns {status after the poll, the sealed token, a clear token
-- (written by a matchmaker of the previous release)}: a matched ticket's token ("" if none) is taken off the
-- ticket by the first poll that sees it, so exactly one poll ever gets it.
-- KEYS: ticket alive queue
-- ARGV: ttl_ms ticket_id now
local status = redis.call('HGET', K.ticket, 'status')
if not status then return false end
if status == 'queued' then
  if redis.call('EXISTS', K.alive) == 1 then
    redis.call('PEXPIRE', K.alive, A.ttl_ms)
  else
    redis.call('HSET', K.ticket, 'status', 'expired')
    redis.call('ZREM', K.queue, A.ticket_id)
    status = 'expired'
  end
end
local sealed, clear = '', ''
if status == 'matched' then
  sealed = redis.call('HGET', K.ticket, 'token_sealed') or ''
  clear = redis.call('HGET', K.ticket, 'token') or ''
  if sealed ~= '' or clear ~= '' then
    redis.call('HDEL', K.ticket, 'token_sealed', 'token')
    redis.call('HSET', K.ticket, 'token_delivered_ms', A.now)
  end
end
return {status, sealed, clear}
