-- Claim a due bot-wait entry by moving it on to next_due (services/gamestate/store.py: Store.claim_bot_wait).
-- KEYS: bot_wait
-- ARGV: game_id now next_due
local due = redis.call('ZSCORE', K.bot_wait, A.game_id)
if due and tonumber(due) <= tonumber(A.now) then
  redis.call('ZADD', K.bot_wait, A.next_due, A.game_id)
  return 1
end
return 0
