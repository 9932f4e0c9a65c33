-- Count one more in every tier of an address's quota, or in none when a tier is full: a refused request spends
-- nothing (services/gateway/domain/address_quota.py). Answers one flag per tier, 1 where the tier is full (then
-- nothing was counted), all 0 when the request was counted in each.
-- KEYS: counters...
-- ARGV: limits_and_windows_ms...
local full = {}
local refused = false
for i, key in ipairs(K.counters) do
  local n = tonumber(redis.call('GET', key) or '0')
  if n >= tonumber(A.limits_and_windows_ms[2 * i - 1]) then
    full[i] = 1
    refused = true
  else
    full[i] = 0
  end
end
if not refused then
  for i, key in ipairs(K.counters) do
    if redis.call('INCR', key) == 1 then redis.call('PEXPIRE', key, A.limits_and_windows_ms[2 * i]) end
  end
end
return full
