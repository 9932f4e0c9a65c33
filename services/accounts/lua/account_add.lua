-- Add one event to an account's stream, bounded (services/accounts/events.py), and queue its webhook deliveries
-- (`hook`: its webhook event type, '' for none).
-- USES: append webhook_enqueue
-- KEYS: stream routes due jobs
-- ARGV: type data maxlen minid ttl hook
local id = append(K.stream, A.type, A.data, tonumber(A.maxlen), A.minid, A.ttl)
webhook_enqueue(K.routes, K.due, K.jobs, A.hook, id, A.data)
return id
