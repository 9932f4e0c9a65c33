-- Ends this claim's tickets whose game could not be created because their player is over a quota (docs/decisions/abuse-bounds.md;
-- services/matchmaker/store.py: TicketStore.refuse): status 'refused', the reason in 'note'; never queued again.
-- pairs: ticket_1, alive_1, ...; ids: the ticket ids in the same order.
-- KEYS: claims pairs...
-- ARGV: claim_id note ids...
for i = 1, #K.pairs / 2 do
  local t = K.pairs[2 * i - 1]
  if redis.call('HGET', t, 'status') == 'claimed' and redis.call('HGET', t, 'claim') == A.claim_id then
    redis.call('HSET', t, 'status', 'refused', 'note', A.note)
    redis.call('HDEL', t, 'claim')
    redis.call('DEL', K.pairs[2 * i])
    redis.call('ZREM', K.claims, A.ids[i])
  end
end
return 1
