-- Drop the bot-wait entry a claim set to `due`, only if nothing re-armed it since.
-- KEYS: bot_wait
-- ARGV: game_id due
local due = redis.call('ZSCORE', K.bot_wait, A.game_id)
if due and tonumber(due) == tonumber(A.due) then
  redis.call('ZREM', K.bot_wait, A.game_id)
  return 1
end
return 0
