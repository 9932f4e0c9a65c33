-- Record one attempt of a delivery this deliverer leased (until `lease_end`): -2 if the lease is no longer its own
-- (another deliverer took it after the lease ran out: nothing recorded). `outcome`: delivered (done), retry (due
-- again at `next`, with `json`: its attempts so far), gave_up (done, failed), dropped (its webhook is gone or
-- disabled: done, not logged). Returns the ms since which the webhook has been failing (0: it is not).
-- KEYS: due jobs failing log
-- ARGV: job lease_end outcome next json entry webhook now
local leased = redis.call('ZSCORE', K.due, A.job)
if not leased or tonumber(leased) ~= tonumber(A.lease_end) then return -2 end
if A.outcome == 'retry' then
  redis.call('ZADD', K.due, A.next, A.job)
  redis.call('HSET', K.jobs, A.job, A.json)
else
  redis.call('ZREM', K.due, A.job)
  redis.call('HDEL', K.jobs, A.job)
end
if A.outcome == 'dropped' then return 0 end
redis.call('LPUSH', K.log, A.entry)
redis.call('LTRIM', K.log, 0, 99)
if A.outcome == 'delivered' then
  redis.call('HDEL', K.failing, A.webhook)
  return 0
end
redis.call('HSETNX', K.failing, A.webhook, A.now)
return tonumber(redis.call('HGET', K.failing, A.webhook))
