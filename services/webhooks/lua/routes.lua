-- Shared functions (`-- USES: routes`). `rebuild_routes(hooks, off, routes)` writes the account's routing hash
-- (event type -> space-separated ids of its enabled webhooks), what lua/webhook_enqueue.lua (beside the account
-- stream's append) reads. `drop_jobs(due, jobs, id)` removes the queued deliveries of webhook `id`.
local function rebuild_routes(hooks, off, routes)
  redis.call('DEL', routes)
  local all = redis.call('HGETALL', hooks)
  local by_type = {}
  for i = 1, #all, 2 do
    if redis.call('HEXISTS', off, all[i]) == 0 then
      for _, kind in ipairs(cjson.decode(all[i + 1]).events) do
        by_type[kind] = (by_type[kind] and (by_type[kind] .. ' ') or '') .. all[i]
      end
    end
  end
  for kind, ids in pairs(by_type) do redis.call('HSET', routes, kind, ids) end
end

local function drop_jobs(due, jobs, id)
  local prefix = id .. '/'
  local dropped = 0
  for _, job in ipairs(redis.call('ZRANGE', due, 0, -1)) do
    if string.sub(job, 1, #prefix) == prefix then
      redis.call('ZREM', due, job)
      redis.call('HDEL', jobs, job)
      dropped = dropped + 1
    end
  end
  return dropped
end
