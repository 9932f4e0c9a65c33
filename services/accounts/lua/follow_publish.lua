-- Appends one game version's events to ONE account's stream only if `version` is newer than the last version of
-- that game published to this account; returns 1 if it did (services/outcomes/consumer.py). `sent` and
-- the stream are both in the account's slot (Redis Cluster, docs/decisions/redis-cluster.md), so exactly-once holds
-- per account. Each event (`your_turn`, `game_end`: their own webhook event types) queues its webhook deliveries
-- with its append.
-- events: (type, data JSON) per event; keep: seconds.
-- USES: append webhook_enqueue
-- KEYS: sent stream routes due jobs
-- ARGV: version minid maxlen keep events...
local last = tonumber(redis.call('GET', K.sent) or '-1')
if last >= tonumber(A.version) then return 0 end
redis.call('SET', K.sent, A.version, 'EX', A.keep)
for j = 1, #A.events, 2 do
  local id = append(K.stream, A.events[j], A.events[j + 1], tonumber(A.maxlen), A.minid, A.keep)
  webhook_enqueue(K.routes, K.due, K.jobs, A.events[j], id, A.events[j + 1])
end
return 1
