-- Appends one game version's account events only if `version` is newer than the last published one; returns 1
-- if it did (services/gateway/domain/following.py). streams: the account stream of each event; events: (type, data
-- JSON) per event, in the same order; keep: seconds.
-- USES: append
-- KEYS: follow_pos streams...
-- ARGV: version to_act minid maxlen keep events...
local last = tonumber(redis.call('HGET', K.follow_pos, 'v') or '-1')
if last >= tonumber(A.version) then return 0 end
redis.call('HSET', K.follow_pos, 'v', A.version, 'to_act', A.to_act)
redis.call('EXPIRE', K.follow_pos, A.keep)
for i, stream in ipairs(K.streams) do
  local j = 2 * i - 1
  append(stream, A.events[j], A.events[j + 1], tonumber(A.maxlen), A.minid, A.keep)
end
return 1
