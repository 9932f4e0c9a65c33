-- A shared function (`-- USES: webhook_enqueue`), no script of its own. `webhook_enqueue(routes, due, jobs, hook,
-- entry_id, data)` queues one delivery of an account-stream entry to each enabled webhook of the account that takes
-- the event type `hook` ('': the entry is no webhook event). It is the one place where account events become
-- webhook deliveries, called by the scripts that append to the account stream right after their `append`: a
-- delivery is queued exactly when the entry is appended, once per entry and webhook (services/webhooks/).
-- routes: hash type -> space-separated webhook ids; due: sorted set delivery -> due ms; jobs: delivery -> JSON.
local function webhook_enqueue(routes, due, jobs, hook, entry_id, data)
  if hook == '' then return 0 end
  local ids = redis.call('HGET', routes, hook)
  if not ids then return 0 end
  local at = tonumber(string.match(entry_id, '^(%d+)'))
  local queued = 0
  for id in string.gmatch(ids, '%S+') do
    local job = id .. '/' .. entry_id
    redis.call('HSET', jobs, job, '{"webhook":"' .. id .. '","type":"' .. hook .. '","event":"' .. entry_id ..
      '","at_ms":' .. at .. ',"attempt":0,"data":' .. data .. '}')
    redis.call('ZADD', due, at, job)
    queued = queued + 1
  end
  return queued
end
