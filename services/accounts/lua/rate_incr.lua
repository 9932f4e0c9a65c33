-- Counts every bucket of one request (per IP, per token) in ONE round trip: {n1, ttl1, n2, ttl2, ...}
-- (services/accounts/rate_limits.py). On a Redis Cluster each subject's counter is in its own slot: one key a call.
-- KEYS: buckets...
-- ARGV: window_ms
local out = {}
for i, key in ipairs(K.buckets) do
  local n = redis.call('INCR', key)
  if n == 1 then redis.call('PEXPIRE', key, A.window_ms) end
  out[2 * i - 1] = n
  out[2 * i] = redis.call('PTTL', key)
end
return out
