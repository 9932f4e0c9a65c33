-- Record groups' placements (services/matchmaker/store.py). Each group on its own records its placements only if
-- every one of its tickets is still held by this claim (1), else writes nothing (0). Returns the results, one per
-- group. pairs: ticket_1, alive_1, ... of every group in turn; groups: JSON array with per group an array of
-- [ticket id, game_id, seat, sealed token or ""] (same order as the keys).
-- KEYS: claims pairs...
-- ARGV: claim_id groups
local groups = cjson.decode(A.groups)
local results = {}
local base = 0
for j, placements in ipairs(groups) do
  local held = 1
  for i = 1, #placements do
    local t = K.pairs[2 * (base + i) - 1]
    if redis.call('HGET', t, 'status') ~= 'claimed' or redis.call('HGET', t, 'claim') ~= A.claim_id then
      held = 0
      break
    end
  end
  if held == 1 then
    for i, p in ipairs(placements) do
      local k = base + i
      local t = K.pairs[2 * k - 1]
      redis.call('HSET', t, 'status', 'matched', 'game_id', p[2], 'seat', p[3])
      if p[4] ~= '' then redis.call('HSET', t, 'token_sealed', p[4]) end
      redis.call('DEL', K.pairs[2 * k])
      redis.call('ZREM', K.claims, p[1])
    end
  end
  results[j] = held
  base = base + #placements
end
return results
