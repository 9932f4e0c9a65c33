-- A game's state for a read: returns {version, digest, snap version, snap state, log tail...}.
-- KEYS: meta log snap
local v = redis.call('HGET', K.meta, 'version')
if not v then return false end
local digest = redis.call('HGET', K.meta, 'digest')
local snap = redis.call('HMGET', K.snap, 'version', 'state')
local out = {v, digest, snap[1], snap[2]}
local tail = redis.call('LRANGE', K.log, tonumber(snap[1]), -1)
for _, entry in ipairs(tail) do table.insert(out, entry) end
return out
