-- Lease the chosen deliveries of one account (the deliverer read which are due, then chose those its bounds allow):
-- each one still due at `now` (not leased meanwhile by another deliverer) is due again at `lease_end` (ms) unless
-- recorded before (record.lua), so one taken by a deliverer that dies is sent again after the lease. Returns
-- delivery, JSON, ... of those leased; a chosen one whose body is gone is dropped from the queue.
-- KEYS: due jobs
-- ARGV: now lease_end jobs...
local out = {}
for _, job in ipairs(A.jobs) do
  local due = redis.call('ZSCORE', K.due, job)
  if due and tonumber(due) <= tonumber(A.now) then
    local body = redis.call('HGET', K.jobs, job)
    if body then
      redis.call('ZADD', K.due, A.lease_end, job)
      out[#out + 1] = job
      out[#out + 1] = body
    else
      redis.call('ZREM', K.due, job)
    end
  end
end
return out
