-- Count one more in an address's window: {count, ms left in the window} (services/gateway/domain/address_quota.py).
-- KEYS: counter
-- ARGV: window_ms
local n = redis.call('INCR', K.counter)
if n == 1 then redis.call('PEXPIRE', K.counter, A.window_ms) end
return {n, redis.call('PTTL', K.counter)}
