"""Matchmaking tickets in Redis, with every state change an atomic Lua script.

A ticket is a hash (status queued | claimed | matched | expired | cancelled | refused)
plus an "alive" key whose TTL each poll renews. Queued tickets also sit in
their bucket's sorted set (bucket = game, player count, options and time control). A
matchmaker claims a whole group in one script that checks every ticket is
still queued and alive, so two matchmakers can never put one ticket in two
games, and expired or cancelled tickets are never matched. Reads, claims and
placements each take one script for many tickets or groups (a pass of
thousands of tickets costs a few round trips, not a few per game).

Redis Cluster (docs/decisions/redis-cluster.md): a pool's queue, claims and tickets share the pool's hash tag
(services/accounts/keys.py; a ticket id begins with it), so every script above touches one slot, and race-safety between
matchmakers is the same on a cluster as on one Redis.

A ticket lives while its player listens (docs/decisions/accounts.md, as a Lichess seek lives while its connection does):
the account's ticket ids are listed in its own slot (`_of`), and an open account stream (GET /v1/players/me/events)
renews their alive keys (`keep_alive`), so a ticket need not be polled; the match is pushed on that stream as
`game_start` (matcher.py). A ticket nobody polls and no stream keeps alive expires `ttl_s` after its last renewal.

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

from services.accounts.keys import Keys, pool_tag
from services.accounts.sealing import seal, unseal
from services.common.redis_scripts import LuaScript

log = logging.getLogger(__name__)

POLL = LuaScript.beside(__file__, "poll")
CANCEL = LuaScript.beside(__file__, "cancel")
# Data of many tickets travels as one JSON argument (cjson in the script) instead of one argument per value:
# encoding tens of thousands of arguments cost the matchmaker more CPU than everything else in a pass.
IDS = LuaScript.beside(__file__, "ids")
QUEUED = LuaScript.beside(__file__, "queued")
CLAIM = LuaScript.beside(__file__, "claim")
RELEASE = LuaScript.beside(__file__, "release")
REFUSE = LuaScript.beside(__file__, "refuse")
MATCHED = LuaScript.beside(__file__, "matched")

#: Tickets read per QUEUED call: bounds how long one script holds Redis.
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
    #: the game's time control (JSON shape, services/gamestate/clocks.py); the gateway always resolves one (its
    #: default: GATEWAY_MM_*), None = a game without a clock (tickets queued straight into the store: tests, bench)
    time_control: dict | None = None
    #: why a refused ticket was refused (its player over a quota: docs/decisions/abuse-bounds.md)
    note: str | None = None

    @property
    def bucket(self) -> str:
        return bucket_of(self.game, self.players, self.options, self.time_control, self.opponents)


#: Suffix of the buckets of humans-only tickets: only human accounts' tickets asking for humans are there.
HUMANS_ONLY = "|humans"


def bucket_of(game: str, players: int, options: dict, time_control: dict | None = None, opponents: str = "any") -> str:
    """Tickets only ever meet tickets of the same game, count, options, time control and opponents wish."""
    key = f"{game}|{players}|{json.dumps(options, sort_keys=True, separators=(',', ':'))}"
    if time_control is not None:  # None: no clock
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
        note=d.get("note"),
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
        self._poll = POLL.register(redis)
        self._cancel = CANCEL.register(redis)
        self._claim = CLAIM.register(redis)
        self._release = RELEASE.register(redis)
        self._refuse = REFUSE.register(redis)
        self._matched = MATCHED.register(redis)
        self._queued = QUEUED.register(redis)
        self._ids = IDS.register(redis)

    async def create(
        self, player_id: str, game: str, players: int, options: dict, bots_after_s: float, rating: float,
        opponents: str = "any",
        time_control: dict | None = None,
    ) -> Ticket:
        """Queue a ticket; `time_control` (its JSON shape) is the game's, already resolved to the default. A
        humans-only ticket never gets bot fill (its `bots_after_s` is infinite)."""
        bucket = bucket_of(game, players, options, time_control, opponents)
        ticket_id = pool_tag(bucket) + uuid.uuid4().hex[:28]  # its pool's slot, readable from the id (keys.py)
        now = int(time.time() * 1000)
        fields = {
            "player_id": player_id, "game": game, "players": players,
            "options": json.dumps(options, sort_keys=True),
            "bots_after_s": "inf" if opponents == "humans" else bots_after_s,
            "created_ms": now, "rating": rating, "status": "queued", "opponents": opponents,
        }
        if time_control is not None:
            fields["time_control"] = json.dumps(time_control, sort_keys=True)
        await self.redis.sadd(self.keys.buckets(), bucket)  # the pool registry first: a pass then finds the pool
        async with self.redis.pipeline(transaction=True) as pipe:  # the pool's slot
            pipe.hset(self.keys.ticket(ticket_id), mapping=fields)
            pipe.expire(self.keys.ticket(ticket_id), self.keep_s)
            pipe.set(self.keys.ticket_alive(ticket_id), "1", px=self.ttl_ms)
            pipe.zadd(self.keys.queue(bucket), {ticket_id: now})
            await pipe.execute()
        async with self.redis.pipeline(transaction=True) as pipe:  # the account's slot
            pipe.sadd(self._of(player_id), ticket_id)
            pipe.expire(self._of(player_id), self.keep_s)
            await pipe.execute()
        return await self.get(ticket_id)  # type: ignore[return-value]

    def _of(self, player_id: str) -> str:
        """The ids of the tickets an account queued (a set in the account's slot), which its stream keeps alive."""
        return f"{self.keys.prefix}mm:of:{self.keys.account_tag(player_id)}"

    async def of(self, player_id: str) -> list[str]:
        """The ids of the tickets the account queued that may still be queued (an account's deletion cancels
        them)."""
        return sorted(_text(t) for t in await self.redis.smembers(self._of(player_id)))

    async def keep_alive(self, player_id: str) -> int:
        """Renew the TTL of the account's queued (or claimed) tickets: its open account stream calls this every
        third of the TTL, so a ticket stays queued while its player listens, without a poll. Tickets that ended
        (matched, expired, cancelled, refused) leave the list; an expired one is never revived (PEXPIRE of a
        lapsed alive key does nothing). Returns how many were renewed."""
        of = self._of(player_id)
        ids = sorted(_text(t) for t in await self.redis.smembers(of))
        if not ids:
            return 0
        async with self.redis.pipeline(transaction=False) as pipe:  # the tickets' pools: one slot each
            for tid in ids:
                pipe.pexpire(self.keys.ticket_alive(tid), self.ttl_ms)
                pipe.hget(self.keys.ticket(tid), "status")
            replies = await pipe.execute()
        renewed, statuses = replies[0::2], [_text(s) for s in replies[1::2]]
        # ended: a final status, or queued with its alive key gone (expired, marked so at its next read); a claimed
        # ticket stays listed (a failed game creation puts it back in the queue with a fresh TTL)
        ended = [tid for tid, ok, status in zip(ids, renewed, statuses)
                 if status not in ("queued", "claimed") or (status == "queued" and not ok)]
        if ended:
            await self.redis.srem(of, *ended)
        return sum(1 for ok in renewed if ok)

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
        reply = await self._poll(keys=self._ticket_keys(ticket),
                                 args={"ttl_ms": self.ttl_ms, "ticket_id": ticket_id, "now": int(time.time() * 1000)})
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
        status = await self._cancel(keys=self._ticket_keys(ticket), args={"ticket_id": ticket_id})
        return _text(status) if status else None

    def _ticket_keys(self, ticket: Ticket) -> dict[str, str]:
        """The keys of one ticket that POLL and CANCEL change."""
        return {"ticket": self.keys.ticket(ticket.ticket_id), "alive": self.keys.ticket_alive(ticket.ticket_id),
                "queue": self.keys.queue(ticket.bucket)}

    async def buckets(self) -> list[str]:
        return sorted(_text(b) for b in await self.redis.smembers(self.keys.buckets()))

    async def queued(self, bucket: str) -> list[Ticket]:
        """Queued tickets of one bucket, oldest first (the expired ones are marked and dropped).

        Read by a script in chunks of READ_CHUNK: a JSON reply per chunk instead of a hash per ticket.
        """
        queue = self.keys.queue(bucket)
        opponents = "humans" if bucket.endswith(HUMANS_ONLY) else "any"
        ids = json.loads(await self._ids(keys={"queue": queue}))
        out = []
        for start in range(0, len(ids), READ_CHUNK):
            chunk = ids[start:start + READ_CHUNK]
            rows = json.loads(await self._queued(keys={"queue": queue, "pairs": self._pairs(chunk)},
                                                 args={"ids": _dumps(chunk)}))
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
        keys = {"queue": self.keys.queue(bucket), "claims": self.keys.claims(bucket), "pairs": self._pairs(ids)}
        args = {"claim_id": claim_id, "now": now_ms, "groups": _dumps(groups)}
        return [int(r) for r in await self._claim(keys=keys, args=args)]

    async def release(self, claim_id: str, bucket: str, ticket_ids: list[str]) -> None:
        """Put claimed tickets back in the queue (game creation failed), with a fresh TTL."""
        keys = {"queue": self.keys.queue(bucket), "claims": self.keys.claims(bucket),
                "pairs": self._pairs(ticket_ids)}
        await self._release(keys=keys, args={"claim_id": claim_id, "ttl_ms": self.ttl_ms, "ids": ticket_ids})

    async def refuse(self, claim_id: str, bucket: str, ticket_ids: list[str], note: str) -> None:
        """End claimed tickets for good (status refused, `note` saying why): their player is over a quota, so
        queueing them again would only fail again."""
        if ticket_ids:
            await self._refuse(keys={"claims": self.keys.claims(bucket), "pairs": self._pairs(ticket_ids)},
                               args={"claim_id": claim_id, "note": note, "ids": ticket_ids})

    async def matched(self, claim_id: str, bucket: str, placements: dict[str, Placement]) -> bool:
        """Record each claimed ticket's game, seat and (sealed) seat token; False (nothing written) if the claim
        was lost."""
        return (await self.matched_groups(claim_id, bucket, [placements]))[0]

    async def matched_groups(self, claim_id: str, bucket: str, groups: list[dict[str, Placement]]) -> list[bool]:
        """`matched` for several groups in one script; each group is recorded whole or not at all."""
        if not groups:
            return []
        ids = [tid for group in groups for tid in group]
        rows = [[[tid, game_id, str(seat), seal(self.secret, tid, token) if token else ""]
                 for tid, (game_id, seat, token) in group.items()] for group in groups]
        keys = {"claims": self.keys.claims(bucket), "pairs": self._pairs(ids)}
        return [bool(r) for r in await self._matched(keys=keys, args={"claim_id": claim_id, "groups": _dumps(rows)})]

    async def release_stale_claims(self, older_than_s: float) -> int:
        """Release claims held longer than `older_than_s` (their matchmaker died mid-creation), pool by pool."""
        cutoff = int((time.time() - older_than_s) * 1000)
        released = 0
        for bucket in await self.buckets():
            claims = self.keys.claims(bucket)
            for tid in [_text(t) for t in await self.redis.zrangebyscore(claims, "-inf", cutoff)]:
                ticket = await self.get(tid)
                claim = _text(await self.redis.hget(self.keys.ticket(tid), "claim"))
                if ticket is None or ticket.status != "claimed" or claim is None:
                    await self.redis.zrem(claims, tid)
                    continue
                await self.release(claim, ticket.bucket, [tid])
                released += 1
        return released
