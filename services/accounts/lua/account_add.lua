-- Add one event to an account's stream, bounded (services/accounts/events.py).
-- USES: append
-- KEYS: stream
-- ARGV: type data maxlen minid ttl
return append(K.stream, A.type, A.data, tonumber(A.maxlen), A.minid, A.ttl)
