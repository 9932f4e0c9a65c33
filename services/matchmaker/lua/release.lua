-- Puts this claim's tickets back in the queue with a fresh TTL (game creation failed, or its owner died)
-- (services/matchmaker/store.py). pairs: ticket_1, alive_1, ...; ids: the ticket ids in the same order.
-- KEYS: queue claims pairs...
-- ARGV: claim_id ttl_ms ids...
for i = 1, #K.pairs / 2 do
  local t = K.pairs[2 * i - 1]
  if redis.call('HGET', t, 'status') == 'claimed' and redis.call('HGET', t, 'claim') == A.claim_id then
    redis.call('HSET', t, 'status', 'queued')
    redis.call('HDEL', t, 'claim')
    redis.call('SET', K.pairs[2 * i], '1', 'PX', A.ttl_ms)
    redis.call('ZADD', K.queue, redis.call('HGET', t, 'created_ms'), A.ids[i])
    redis.call('ZREM', K.claims, A.ids[i])
  end
end
return 1
