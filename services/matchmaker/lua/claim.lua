-- Claim groups of tickets (services/matchmaker/store.py). Each group on its own is claimed whole or not at all:
-- its result is 0 when every ticket was claimed, else the 1-based index (within the group) of the first that
-- could not be (an expired one is marked expired on the way). Returns the results, one per group. Claimed
-- tickets are listed in `claims` by claim time. pairs: ticket_1, alive_1, ... of every group in turn; groups:
-- JSON array of the groups' ticket-id arrays (same order as the keys).
-- KEYS: queue claims pairs...
-- ARGV: claim_id now groups
local groups = cjson.decode(A.groups)
local results = {}
local base = 0
for j, ids in ipairs(groups) do
  local failed = 0
  for i, id in ipairs(ids) do
    local k = base + i
    local t = K.pairs[2 * k - 1]
    if redis.call('HGET', t, 'status') ~= 'queued' then
      failed = i
      break
    end
    if redis.call('EXISTS', K.pairs[2 * k]) == 0 then
      redis.call('HSET', t, 'status', 'expired')
      redis.call('ZREM', K.queue, id)
      failed = i
      break
    end
  end
  if failed == 0 then
    for i, id in ipairs(ids) do
      redis.call('HSET', K.pairs[2 * (base + i) - 1], 'status', 'claimed', 'claim', A.claim_id)
      redis.call('ZREM', K.queue, id)
      redis.call('ZADD', K.claims, A.now, id)
    end
  end
  results[j] = failed
  base = base + #ids
end
return results
