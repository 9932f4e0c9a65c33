-- Enable (`reason` '') or disable one webhook; disabling drops its queued deliveries (they would only fail). -1 if
-- there is no such webhook, 0 if it already was so, 1 if this call changed it (only that call tells the account).
-- USES: routes
-- KEYS: hooks off routes due jobs failing
-- ARGV: id reason
if redis.call('HEXISTS', K.hooks, A.id) == 0 then return -1 end
local changed
if A.reason == '' then
  changed = redis.call('HDEL', K.off, A.id)
else
  changed = redis.call('HSETNX', K.off, A.id, A.reason)
  if changed == 1 then drop_jobs(K.due, K.jobs, A.id) end
end
redis.call('HDEL', K.failing, A.id)
rebuild_routes(K.hooks, K.off, K.routes)
return changed
