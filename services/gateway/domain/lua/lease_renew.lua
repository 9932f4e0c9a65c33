-- Renew the lease if this holder still has it (services/gateway/domain/following.py).
-- KEYS: lease
-- ARGV: holder ttl_ms
if redis.call('GET', K.lease) == A.holder then return redis.call('PEXPIRE', K.lease, A.ttl_ms) end
return 0
