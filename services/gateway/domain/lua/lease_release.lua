-- Release the lease if this holder still has it (services/gateway/domain/following.py).
-- KEYS: lease
-- ARGV: holder
if redis.call('GET', K.lease) == A.holder then return redis.call('DEL', K.lease) end
return 0
