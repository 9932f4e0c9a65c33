-- Appends one game version's events to ONE account's stream only if `version` is newer than the last version of
-- that game published to this account; returns 1 if it did (services/gateway/domain/following.py). `sent` and
-- the stream are both in the account's slot (Redis Cluster, issue #40), so exactly-once holds per account.
-- events: (type, data JSON) per event; keep: seconds.
-- USES: append
-- KEYS: sent stream
-- ARGV: version minid maxlen keep events...
local last = tonumber(redis.call('GET', K.sent) or '-1')
if last >= tonumber(A.version) then return 0 end
redis.call('SET', K.sent, A.version, 'EX', A.keep)
for j = 1, #A.events, 2 do
  append(K.stream, A.events[j], A.events[j + 1], tonumber(A.maxlen), A.minid, A.keep)
end
return 1
