-- A shared function (`-- USES: append`), no script of its own. `append(stream, type, data, max length, min id,
-- ttl s)` adds one entry, trims by age, then deletes the oldest entries without the credential mark
-- (services/accounts/events.py: CREDENTIAL_MARK; never the one just added) down to the max length.
local function append(key, kind, data, maxlen, minid, ttl)
  local id = redis.call('XADD', key, '*', 'type', kind, 'data', data)
  redis.call('XTRIM', key, 'MINID', minid)
  local excess = redis.call('XLEN', key) - maxlen
  local start = '-'
  while excess > 0 do
    local batch = redis.call('XRANGE', key, start, '+', 'COUNT', excess + 16)
    local progressed = false
    for _, entry in ipairs(batch) do
      if excess <= 0 or entry[1] == id then break end
      progressed = true
      start = '(' .. entry[1]
      local fields, keep = entry[2], false
      for i = 1, #fields, 2 do
        if fields[i] == 'data' and string.find(fields[i + 1], '"token_pending":true', 1, true) then
          keep = true
        end
      end
      if not keep then
        redis.call('XDEL', key, entry[1])
        excess = excess - 1
      end
    end
    if not progressed then break end
  end
  redis.call('EXPIRE', key, ttl)
  return id
end
