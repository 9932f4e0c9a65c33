-- The queue's ticket ids, oldest first, as one JSON array (services/matchmaker/store.py).
-- KEYS: queue
local ids = redis.call('ZRANGE', K.queue, 0, -1)
if #ids == 0 then return '[]' end
return cjson.encode(ids)
