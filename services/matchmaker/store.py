"""Matchmaking tickets in Redis, with every state change an atomic Lua script.

A ticket is a hash (status queued | claimed | matched | expired | cancelled)
plus an "alive" key whose TTL each poll renews. Queued tickets also sit in
their bucket's sorted set (bucket = game, player count, options and time control). A
matchmaker claims a whole group in one script that checks every ticket is
still queued and alive, so two matchmakers can never put one ticket in two
games, and expired or cancelled tickets are never matched. Reads, claims and
placements each take one script for many tickets or groups (a pass of
thousands of tickets costs a few round trips, not a few per game).

A matched ticket's seat token is stored sealed (`sealing`, never in clear) and
handed out once: the first poll that sees the match takes it off the ticket in
the same script, and only the time it was handed out is kept.
"""

from __future__ import annotations

import json
import logging
import time
import uuid
from dataclasses import dataclass, replace

from redis.asyncio import Redis

from services.gateway.keys import Keys
from services.matchmaker.sealing import seal, unseal

log = logging.getLogger(__name__)

# KEYS: ticket, alive, queue. ARGV: ttl_ms, ticket id, now ms. Returns {status after the poll, the sealed token,
# a clear token (written by a matchmaker of the previous release)}: a matched ticket's token ("" if none) is
# taken off the ticket by the first poll that sees it, so exactly one poll ever gets it.
_POLL = """
local status = redis.call('HGET', KEYS[1], 'status')
if not status then return false end
if status == 'queued' then
  if redis.call('EXISTS', KEYS[2]) == 1 then
    redis.call('PEXPIRE', KEYS[2], ARGV[1])
  else
    redis.call('HSET', KEYS[1], 'status', 'expired')
    redis.call('ZREM', KEYS[3], ARGV[2])
    status = 'expired'
  end
end
local sealed, clear = '', ''
if status == 'matched' then
  sealed = redis.call('HGET', KEYS[1], 'token_sealed') or ''
  clear = redis.call('HGET', KEYS[1], 'token') or ''
  if sealed ~= '' or clear ~= '' then
    redis.call('HDEL', KEYS[1], 'token_sealed', 'token')
    redis.call('HSET', KEYS[1], 'token_delivered_ms', ARGV[3])
  end
end
return {status, sealed, clear}
"""

# KEYS: ticket, alive, queue. ARGV: ticket id. Returns the status after the call.
_CANCEL = """
local status = redis.call('HGET', KEYS[1], 'status')
if not status then return false end
if status == 'queued' then
  if redis.call('EXISTS', KEYS[2]) == 1 then
    redis.call('HSET', KEYS[1], 'status', 'cancelled')
    redis.call('DEL', KEYS[2])
    status = 'cancelled'
  else
    redis.call('HSET', KEYS[1], 'status', 'expired')
    status = 'expired'
  end
  redis.call('ZREM', KEYS[3], ARGV[1])
end
return status
"""

# Data of many tickets travels as one JSON argument (cjson in the script) instead of one argument per value:
# encoding tens of thousands of arguments cost the matchmaker more CPU than everything else in a pass.

# KEYS: queue. Returns the queue's ticket ids, oldest first, as one JSON array.
_IDS = """
local ids = redis.call('ZRANGE', KEYS[1], 0, -1)
if #ids == 0 then return '[]' end
return cjson.encode(ids)
"""

# KEYS: queue, then ticket_1, alive_1, ticket_2, alive_2, ... ARGV: JSON array of the ticket ids.
# Returns a JSON array with [id, player_id, game, players, options, bots_after_s, created_ms, rating, time_control] per
# queued, alive ticket (one string to parse instead of a hash per ticket). On the way it drops from the queue
# the ids whose ticket is gone, and marks expired (and drops) the queued tickets whose TTL lapsed.
_QUEUED = """
local ids = cjson.decode(ARGV[1])
local out = {}
for i, id in ipairs(ids) do
  local t = KEYS[2 * i]
  local f = redis.call('HMGET', t, 'status', 'player_id', 'game', 'players', 'options', 'bots_after_s',
                       'created_ms', 'rating', 'time_control')
  if not f[1] then
    if redis.call('EXISTS', t) == 0 then redis.call('ZREM', KEYS[1], id) end
  elseif f[1] == 'queued' then
    if redis.call('EXISTS', KEYS[2 * i + 1]) == 1 then
      out[#out + 1] = {id, f[2], f[3], f[4], f[5], f[6], f[7], f[8], f[9] or 'null'}
    else
      redis.call('HSET', t, 'status', 'expired')
      redis.call('ZREM', KEYS[1], id)
    end
  end
end
if #out == 0 then return '[]' end
return cjson.encode(out)
"""

# KEYS: queue, claims, then ticket_1, alive_1, ticket_2, alive_2, ... of every group in turn.
# ARGV: claim id, now_ms, JSON array of the groups' ticket-id arrays (same order as the keys).
# Each group on its own is claimed whole or not at all: its result is 0 when every ticket was claimed, else
# the 1-based index (within the group) of the first that could not be (an expired one is marked expired on
# the way). Returns the results, one per group. Claimed tickets are listed in `claims` by claim time.
_CLAIM = """
local groups = cjson.decode(ARGV[3])
local results = {}
local base = 0
for j, ids in ipairs(groups) do
  local failed = 0
  for i, id in ipairs(ids) do
    local k = base + i
    local t = KEYS[2 * k + 1]
    if redis.call('HGET', t, 'status') ~= 'queued' then
      failed = i
      break
    end
    if redis.call('EXISTS', KEYS[2 * k + 2]) == 0 then
      redis.call('HSET', t, 'status', 'expired')
      redis.call('ZREM', KEYS[1], id)
      failed = i
      break
    end
  end
  if failed == 0 then
    for i, id in ipairs(ids) do
      redis.call('HSET', KEYS[2 * (base + i) + 1], 'status', 'claimed', 'claim', ARGV[1])
      redis.call('ZREM', KEYS[1], id)
      redis.call('ZADD', KEYS[2], ARGV[2], id)
    end
  end
  results[j] = failed
  base = base + #ids
end
return results
"""

# KEYS: queue, claims, then ticket_1, alive_1, ... ARGV: claim id, ttl_ms, then ticket ids.
# Puts this claim's tickets back in the queue with a fresh TTL (game creation failed, or its owner died).
_RELEASE = """
local n = (#KEYS - 2) / 2
for i = 1, n do
  local t = KEYS[2 * i + 1]
  if redis.call('HGET', t, 'status') == 'claimed' and redis.call('HGET', t, 'claim') == ARGV[1] then
    redis.call('HSET', t, 'status', 'queued')
    redis.call('HDEL', t, 'claim')
    redis.call('SET', KEYS[2 * i + 2], '1', 'PX', ARGV[2])
    redis.call('ZADD', KEYS[1], redis.call('HGET', t, 'created_ms'), ARGV[i + 2])
    redis.call('ZREM', KEYS[2], ARGV[i + 2])
  end
end
return 1
"""

# KEYS: claims, then ticket_1, alive_1, ... of every group in turn. ARGV: claim id, JSON array with per group
# an array of [ticket id, game_id, seat, sealed token or ""] (same order as the keys). Each group on its own records
# its placements only if every one of its tickets is still held by this claim (1), else writes nothing (0).
# Returns the results, one per group.
_MATCHED = """
local groups = cjson.decode(ARGV[2])
local results = {}
local base = 0
for j, placements in ipairs(groups) do
  local held = 1
  for i = 1, #placements do
    local t = KEYS[2 * (base + i)]
    if redis.call('HGET', t, 'status') ~= 'claimed' or redis.call('HGET', t, 'claim') ~= ARGV[1] then
      held = 0
      break
    end
  end
  if held == 1 then
    for i, p in ipairs(placements) do
      local k = base + i
      local t = KEYS[2 * k]
      redis.call('HSET', t, 'status', 'matched', 'game_id', p[2], 'seat', p[3])
      if p[4] ~= '' then redis.call('HSET', t, 'token_sealed', p[4]) end
      redis.call('DEL', KEYS[2 * k + 1])
      redis.call('ZREM', KEYS[1], p[1])
    end
  end
  results[j] = held
  base = base + #placements
end
return results
"""

#: Tickets read per _QUEUED call: bounds how long one script holds Redis.
READ_CHUNK = 1000

#: (game_id, seat, seat token or None) of one matched ticket.
Placement = tuple[str, int, str | None]


@dataclass(frozen=True)
class Ticket:
    ticket_id: str
    player_id: str
    game: str
    players: int
    options: dict
    bots_after_s: float
    created_ms: int
    rating: float
    status: str
    game_id: str | None = None
    seat: int | None = None
    #: the seat token, only on the Ticket `TicketStore.poll` returns from the poll that took it off Redis
    token: str | None = None
    #: when a poll took the seat token (epoch ms), None while it waits (or the ticket is not matched)
    token_delivered_ms: int | None = None
    #: "humans": a human account's ticket that meets only human accounts' "humans" tickets (its own bucket)
    opponents: str = "any"
    #: the game's time control (JSON shape, services/gamestate/clocks.py); None only on tickets of earlier releases
    time_control: dict | None = None

    @property
    def bucket(self) -> str:
        return bucket_of(self.game, self.players, self.options, self.time_control, self.opponents)


#: Suffix of the buckets of humans-only tickets: only human accounts' tickets asking for humans are there.
HUMANS_ONLY = "|humans"


def bucket_of(game: str, players: int, options: dict, time_control: dict | None = None, opponents: str = "any") -> str:
    """Tickets only ever meet tickets of the same game, count, options, time control and opponents wish."""
    key = f"{game}|{players}|{json.dumps(options, sort_keys=True, separators=(',', ':'))}"
    if time_control is not None:  # None: a ticket of an earlier release, whose queue's name had no time control
        key += f"|{json.dumps(time_control, sort_keys=True, separators=(',', ':'))}"
    return key + HUMANS_ONLY if opponents == "humans" else key


def _dumps(obj) -> str:
    return json.dumps(obj, separators=(",", ":"))


def _text(value) -> str:
    return value.decode() if isinstance(value, bytes) else value


def _ticket(ticket_id: str, raw: dict) -> Ticket:
    d = {_text(k): _text(v) for k, v in raw.items()}
    return Ticket(
        ticket_id=ticket_id,
        player_id=d["player_id"],
        game=d["game"],
        players=int(d["players"]),
        options=json.loads(d["options"]),
        bots_after_s=float(d["bots_after_s"]),
        created_ms=int(d["created_ms"]),
        rating=float(d["rating"]),
        status=d["status"],
        game_id=d.get("game_id"),
        seat=int(d["seat"]) if "seat" in d else None,
        token_delivered_ms=int(d["token_delivered_ms"]) if "token_delivered_ms" in d else None,
        opponents=d.get("opponents", "any"),
        time_control=json.loads(d["time_control"]) if "time_control" in d else None,
    )


class TicketStore:
    def __init__(self, redis: Redis, keys: Keys, ttl_s: float, keep_s: int, *, secret: str):
        """`secret` (the service credential, SERVICE_SECRET) keys the seal of matched tickets' seat tokens: the same
        in the gateway and every matchmaker."""
        self.redis = redis
        self.keys = keys
        self.ttl_ms = max(1, int(ttl_s * 1000))
        self.keep_s = keep_s
        self.secret = secret
        self._poll = redis.register_script(_POLL)
        self._cancel = redis.register_script(_CANCEL)
        self._claim = redis.register_script(_CLAIM)
        self._release = redis.register_script(_RELEASE)
        self._matched = redis.register_script(_MATCHED)
        self._queued = redis.register_script(_QUEUED)
        self._ids = redis.register_script(_IDS)

    async def create(
        self, player_id: str, game: str, players: int, options: dict, bots_after_s: float, rating: float,
        opponents: str = "any",
        time_control: dict | None = None,
    ) -> Ticket:
        """Queue a ticket; `time_control` (its JSON shape) is the game's, already resolved to the default. A
        humans-only ticket never gets bot fill (its `bots_after_s` is infinite)."""
        ticket_id = uuid.uuid4().hex
        now = int(time.time() * 1000)
        bucket = bucket_of(game, players, options, time_control, opponents)
        fields = {
            "player_id": player_id, "game": game, "players": players,
            "options": json.dumps(options, sort_keys=True),
            "bots_after_s": "inf" if opponents == "humans" else bots_after_s,
            "created_ms": now, "rating": rating, "status": "queued", "opponents": opponents,
        }
        if time_control is not None:
            fields["time_control"] = json.dumps(time_control, sort_keys=True)
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.hset(self.keys.ticket(ticket_id), mapping=fields)
            pipe.expire(self.keys.ticket(ticket_id), self.keep_s)
            pipe.set(self.keys.ticket_alive(ticket_id), "1", px=self.ttl_ms)
            pipe.zadd(self.keys.queue(bucket), {ticket_id: now})
            pipe.sadd(self.keys.buckets(), bucket)
            await pipe.execute()
        return await self.get(ticket_id)  # type: ignore[return-value]

    async def get(self, ticket_id: str) -> Ticket | None:
        raw = await self.redis.hgetall(self.keys.ticket(ticket_id))
        return _ticket(ticket_id, raw) if raw else None

    async def poll(self, ticket_id: str) -> Ticket | None:
        """Read a ticket, keeping a queued one alive (or marking it expired if its TTL lapsed). The first poll
        of a matched ticket takes its seat token off Redis and returns it (`Ticket.token`); later ones never
        see it again."""
        ticket = await self.get(ticket_id)
        if ticket is None:
            return None
        reply = await self._poll(
            keys=[self.keys.ticket(ticket_id), self.keys.ticket_alive(ticket_id), self.keys.queue(ticket.bucket)],
            args=[self.ttl_ms, ticket_id, int(time.time() * 1000)],
        )
        ticket = await self.get(ticket_id)
        if not reply or ticket is None:
            return ticket
        sealed, clear = _text(reply[1]), _text(reply[2])
        token = unseal(self.secret, ticket_id, sealed) if sealed else clear or None
        if sealed and token is None:
            log.error("ticket %s: its seat token does not unseal (SERVICE_SECRET differs from the "
                      "matchmaker's?); the token is lost", ticket_id)
            return replace(ticket, token_delivered_ms=None)  # never delivered: say so on this answer
        return replace(ticket, token=token) if token else ticket

    async def cancel(self, ticket_id: str) -> str | None:
        """Cancel a queued ticket; returns the resulting status ('claimed' means too late to cancel)."""
        ticket = await self.get(ticket_id)
        if ticket is None:
            return None
        status = await self._cancel(
            keys=[self.keys.ticket(ticket_id), self.keys.ticket_alive(ticket_id), self.keys.queue(ticket.bucket)],
            args=[ticket_id],
        )
        return _text(status) if status else None

    async def buckets(self) -> list[str]:
        return sorted(_text(b) for b in await self.redis.smembers(self.keys.buckets()))

    async def queued(self, bucket: str) -> list[Ticket]:
        """Queued tickets of one bucket, oldest first (the expired ones are marked and dropped).

        Read by a script in chunks of READ_CHUNK: a JSON reply per chunk instead of a hash per ticket.
        """
        queue = self.keys.queue(bucket)
        opponents = "humans" if bucket.endswith(HUMANS_ONLY) else "any"
        ids = json.loads(await self._ids(keys=[queue]))
        out = []
        for start in range(0, len(ids), READ_CHUNK):
            chunk = ids[start:start + READ_CHUNK]
            rows = json.loads(await self._queued(keys=[queue, *self._pairs(chunk)], args=[_dumps(chunk)]))
            out += [
                Ticket(tid, player_id, game, int(players), json.loads(options), float(bots_after_s),
                       int(created_ms), float(rating), "queued", opponents=opponents,
                       time_control=json.loads(control))
                for tid, player_id, game, players, options, bots_after_s, created_ms, rating, control in rows
            ]
        return out

    def _pairs(self, ticket_ids: list[str]) -> list[str]:
        keys = []
        for tid in ticket_ids:
            keys += [self.keys.ticket(tid), self.keys.ticket_alive(tid)]
        return keys

    async def claim(self, claim_id: str, bucket: str, ticket_ids: list[str], now_ms: int | None = None) -> int:
        """Claim all of `ticket_ids` at once; 0 on success, else the 1-based index of a ticket that failed."""
        return (await self.claim_groups(claim_id, bucket, [ticket_ids], now_ms))[0]

    async def claim_groups(
        self, claim_id: str, bucket: str, groups: list[list[str]], now_ms: int | None = None
    ) -> list[int]:
        """Claim several disjoint groups of one bucket in one script, each whole or not at all; per group
        0 on success, else the 1-based index of a ticket of it that failed."""
        if not groups:
            return []
        now_ms = int(time.time() * 1000) if now_ms is None else now_ms
        ids = [tid for group in groups for tid in group]
        keys = [self.keys.queue(bucket), self.keys.claims(), *self._pairs(ids)]
        return [int(r) for r in await self._claim(keys=keys, args=[claim_id, now_ms, _dumps(groups)])]

    async def release(self, claim_id: str, bucket: str, ticket_ids: list[str]) -> None:
        """Put claimed tickets back in the queue (game creation failed), with a fresh TTL."""
        keys = [self.keys.queue(bucket), self.keys.claims(), *self._pairs(ticket_ids)]
        await self._release(keys=keys, args=[claim_id, self.ttl_ms, *ticket_ids])

    async def matched(self, claim_id: str, placements: dict[str, Placement]) -> bool:
        """Record each claimed ticket's game, seat and (sealed) seat token; False (nothing written) if the claim
        was lost."""
        return (await self.matched_groups(claim_id, [placements]))[0]

    async def matched_groups(self, claim_id: str, groups: list[dict[str, Placement]]) -> list[bool]:
        """`matched` for several groups in one script; each group is recorded whole or not at all."""
        if not groups:
            return []
        ids = [tid for group in groups for tid in group]
        rows = [[[tid, game_id, str(seat), seal(self.secret, tid, token) if token else ""]
                 for tid, (game_id, seat, token) in group.items()] for group in groups]
        keys = [self.keys.claims(), *self._pairs(ids)]
        return [bool(r) for r in await self._matched(keys=keys, args=[claim_id, _dumps(rows)])]

    async def release_stale_claims(self, older_than_s: float) -> int:
        """Release claims held longer than `older_than_s` (their matchmaker died mid-creation)."""
        cutoff = int((time.time() - older_than_s) * 1000)
        released = 0
        for tid in [_text(t) for t in await self.redis.zrangebyscore(self.keys.claims(), "-inf", cutoff)]:
            ticket = await self.get(tid)
            claim = _text(await self.redis.hget(self.keys.ticket(tid), "claim"))
            if ticket is None or ticket.status != "claimed" or claim is None:
                await self.redis.zrem(self.keys.claims(), tid)
                continue
            await self.release(claim, ticket.bucket, [tid])
            released += 1
        return released
