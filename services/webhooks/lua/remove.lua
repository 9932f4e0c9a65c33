-- Delete one webhook with its queued deliveries, log and state; -1 if there was none, else how many are left.
-- USES: routes
-- KEYS: hooks off routes due jobs failing log
-- ARGV: id
if redis.call('HDEL', K.hooks, A.id) == 0 then return -1 end
redis.call('HDEL', K.off, A.id)
redis.call('HDEL', K.failing, A.id)
redis.call('DEL', K.log)
drop_jobs(K.due, K.jobs, A.id)
rebuild_routes(K.hooks, K.off, K.routes)
return redis.call('HLEN', K.hooks)
