-- Store one webhook (new or changed) and rebuild the account's routes; -1 if it is new and the account already
-- holds `max` webhooks (nothing changed), else how many it holds (services/webhooks/store.py).
-- USES: routes
-- KEYS: hooks off routes
-- ARGV: id json max
local count = redis.call('HLEN', K.hooks)
if redis.call('HEXISTS', K.hooks, A.id) == 0 then
  if count >= tonumber(A.max) then return -1 end
  count = count + 1
end
redis.call('HSET', K.hooks, A.id, A.json)
rebuild_routes(K.hooks, K.off, K.routes)
return count
