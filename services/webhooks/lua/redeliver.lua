-- Queue one logged event again for its webhook, due now, attempts from zero (the same webhook-id: it is the same
-- event). 0 if the webhook is disabled (nothing queued), 1 if queued.
-- KEYS: off due jobs
-- ARGV: id job json now
if redis.call('HEXISTS', K.off, A.id) == 1 then return 0 end
redis.call('HSET', K.jobs, A.job, A.json)
redis.call('ZADD', K.due, A.now, A.job)
return 1
