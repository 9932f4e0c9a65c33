"""Challenges between two accounts, in Redis, every status change one atomic script.

A challenge is a hash (status pending | accepting | accepted | declined | cancelled | expired) listed in
both players' `challenges_of` index and, while pending, in `challenges_due` by expiry time. `MOVE`
(lua/challenge_move.lua) checks the status and the expiry in the same script that changes it, so an accept
racing a cancel, a decline or the expiry sweep has exactly one winner, and only the winner publishes the
`challenge_closed` events.

Redis Cluster (docs/decisions/redis-cluster.md): a challenge and its bucket's expiry index share a slot
(services/accounts/keys.py), so `MOVE` stays one script; a player's indexes are in the player's slot.
"""

from __future__ import annotations

import json
import time
import uuid
from dataclasses import dataclass
from typing import Any

from redis.asyncio import Redis

from services.accounts.events import AccountEvents
from services.accounts.keys import BUCKETS, CHALLENGES, Keys, bucket_of
from services.common.redis_scripts import LuaScript
from services.common.slot_transactions import SlotTransactions

MOVE = LuaScript.beside(__file__, "challenge_move")

#: How many challenges one player's index keeps (newest).
INDEX_KEEP = 200
#: An accept that never finished (its gateway died) is expired this long after the challenge's expiry.
STUCK_ACCEPT_S = 120

RESERVE = LuaScript.beside(__file__, "challenge_reserve")


class TooManyChallenges(Exception):
    """The sender has, or the recipient receives, as many pending challenges as it may."""

    def __init__(self, side: str, limit: int):
        super().__init__(f"{side} at {limit} pending challenges")
        self.side = side
        self.limit = limit


def _text(value: bytes | str | None) -> str | None:
    return value.decode() if isinstance(value, bytes) else value


@dataclass(frozen=True)
class Challenge:
    challenge_id: str
    challenger: str
    to: str
    game: str
    players: int
    options: dict[str, Any]
    time_control: dict[str, Any] | None
    rated: bool
    status: str
    created_ms: int
    expires_ms: int
    game_id: str | None = None
    reason: str | None = None  # a declined challenge's decline reason

    def shown_status(self, now_ms: int) -> str:
        """What clients see: a lapsed pending challenge is expired (the sweep records it soon); an accept in
        progress is still pending."""
        if self.status == "pending" and self.expires_ms <= now_ms:
            return "expired"
        return "pending" if self.status == "accepting" else self.status

    def to_json(self, viewer: str | None = None, now_ms: int | None = None) -> dict[str, Any]:
        now_ms = int(time.time() * 1000) if now_ms is None else now_ms
        direction = None if viewer is None else ("outgoing" if viewer == self.challenger else "incoming")
        return {"challenge_id": self.challenge_id, "status": self.shown_status(now_ms), "challenger": self.challenger,
                "to": self.to, "game": self.game, "players": self.players, "options": self.options,
                "time_control": self.time_control, "rated": self.rated, "created_ms": self.created_ms,
                "expires_at": self.expires_ms, "game_id": self.game_id, "direction": direction,
                "reason": self.reason}


def _challenge(challenge_id: str, raw: dict) -> Challenge:
    d = {_text(k): _text(v) for k, v in raw.items()}
    return Challenge(
        challenge_id=challenge_id, challenger=d["challenger"], to=d["to"], game=d["game"], players=int(d["players"]),
        options=json.loads(d["options"]), time_control=json.loads(d["time_control"]) if d.get("time_control") else None,
        rated=d["rated"] == "1", status=d["status"], created_ms=int(d["created_ms"]), expires_ms=int(d["expires_ms"]),
        game_id=d.get("game_id") or None, reason=d.get("reason") or None,
    )


class Challenges:
    def __init__(self, redis: Redis, keys: Keys, ttl_s: int, keep_s: int, per_sender: int = 0,
                 per_recipient: int = 0):
        self.redis = redis
        self.keys = keys
        self.ttl_s = ttl_s
        self.ttl_ms = ttl_s * 1000
        self.keep_s = ttl_s + keep_s
        self.per_sender = per_sender
        self.per_recipient = per_recipient
        self._move = MOVE.register(redis)
        self._reserve = RESERVE.register(redis)

    async def create(self, challenger: str, to: str, game: str, players: int, options: dict[str, Any],
                     time_control: dict[str, Any] | None, rated: bool) -> Challenge:
        """A new pending challenge; TooManyChallenges when the sender or the recipient is at its bound."""
        cid = uuid.uuid4().hex
        now = int(time.time() * 1000)
        await self._take_places(cid, challenger, to, now)
        fields = {"id": cid, "challenger": challenger, "to": to, "game": game, "players": players,
                  "options": json.dumps(options, sort_keys=True), "rated": "1" if rated else "0",
                  "time_control": json.dumps(time_control) if time_control else "", "status": "pending",
                  "created_ms": now, "expires_ms": now + self.ttl_ms}
        tx = SlotTransactions(self.redis)  # the challenge with its bucket's expiry index; each player's index
        pipe = tx.on(CHALLENGES.tag_of(cid))
        pipe.hset(self.keys.challenge(cid), mapping=fields)
        pipe.expire(self.keys.challenge(cid), self.keep_s)
        pipe.zadd(self.keys.challenges_due(bucket_of(cid)), {cid: now + self.ttl_ms})
        for pid in (challenger, to):
            pipe = tx.on(self.keys.account_tag(pid))
            pipe.zadd(self.keys.challenges_of(pid), {cid: now})
            pipe.zremrangebyrank(self.keys.challenges_of(pid), 0, -INDEX_KEEP - 1)
            pipe.expire(self.keys.challenges_of(pid), self.keep_s)
        await tx.execute()
        return _challenge(cid, {k: str(v) for k, v in fields.items()})

    async def _take_places(self, cid: str, challenger: str, to: str, now: int) -> None:
        """A place in the sender's and the recipient's open sets (one script each: each set is its account's
        slot); TooManyChallenges, holding neither, when one is full."""
        for side, pid, bound in (("sender", challenger, self.per_sender), ("recipient", to, self.per_recipient)):
            taken = _text(await self._reserve(
                keys={"open": self.keys.challenges_open("from" if side == "sender" else "to", pid)},
                args={"now": now, "challenge_id": cid, "expires": now + self.ttl_ms, "max": bound, "ttl": self.ttl_s},
            ))
            if taken != "ok":
                if side == "recipient":  # give the sender's place back
                    await self.redis.zrem(self.keys.challenges_open("from", challenger), cid)
                raise TooManyChallenges(side, bound)

    async def get(self, challenge_id: str) -> Challenge | None:
        raw = await self.redis.hgetall(self.keys.challenge(challenge_id))
        return _challenge(challenge_id, raw) if raw else None

    async def move(self, challenge_id: str, required: str, new: str) -> str | None:
        """Move `required` -> `new` atomically; "ok", else the status it has (None: no such challenge). A challenge
        that closed no longer counts against its players' bounds (a lapsed one drops out by its expiry)."""
        result = await self._move(keys={"challenge": self.keys.challenge(challenge_id),
                                        "due": self.keys.challenges_due(bucket_of(challenge_id))},
                                  args={"required": required, "new": new, "now": int(time.time() * 1000)})
        if result and _text(result) == "ok" and new not in ("pending", "accepting"):
            challenger, to = await self.redis.hmget(self.keys.challenge(challenge_id), ["challenger", "to"])
            async with self.redis.pipeline(transaction=False) as pipe:
                if challenger:
                    pipe.zrem(self.keys.challenges_open("from", _text(challenger)), challenge_id)
                if to:
                    pipe.zrem(self.keys.challenges_open("to", _text(to)), challenge_id)
                await pipe.execute()
        return _text(result) if result else None

    async def set_reason(self, challenge_id: str, reason: str) -> None:
        """Keep why the challenge was declined (written once the decline has won its move)."""
        await self.redis.hset(self.keys.challenge(challenge_id), "reason", reason)

    async def set_game(self, challenge_id: str, game_id: str) -> None:
        await self.redis.hset(self.keys.challenge(challenge_id), "game_id", game_id)

    async def of(self, player_id: str, limit: int = 100) -> list[Challenge]:
        """The player's challenges, sent and received, newest first."""
        ids = [_text(i) for i in await self.redis.zrevrange(self.keys.challenges_of(player_id), 0, limit - 1)]
        async with self.redis.pipeline(transaction=False) as pipe:
            for cid in ids:
                pipe.hgetall(self.keys.challenge(cid))
            raws = await pipe.execute()
        return [_challenge(cid, raw) for cid, raw in zip(ids, raws) if raw]

    async def due(self, now_ms: int, limit: int = 100) -> list[str]:
        """Pending challenges whose expiry has come (the sweep expires them), from every bucket (one pipeline)."""
        async with self.redis.pipeline(transaction=False) as pipe:
            for b in range(BUCKETS):
                pipe.zrangebyscore(self.keys.challenges_due(b), "-inf", now_ms, start=0, num=limit, withscores=True)
            replies = await pipe.execute()
        return [_text(i) for _score, i in sorted((s, i) for reply in replies for i, s in reply)[:limit]]


async def tell_closed(challenges: Challenges, events: AccountEvents, ch: Challenge, status: str,
                      reason: str | None = None) -> None:
    """Tell both players that the challenge closed (with the decline reason of a declined one)."""
    tx = SlotTransactions(challenges.redis)
    for pid in (ch.challenger, ch.to):
        events.add_to(tx.on(challenges.keys.account_tag(pid)), pid, "challenge_closed",
                      {"challenge_id": ch.challenge_id, "status": status, "reason": reason})
    await tx.execute()


async def expire_due(challenges: Challenges, events: AccountEvents) -> int:
    """Expire the pending challenges whose time is up, telling both players (only the one sweep whose script
    expired a challenge tells them, so several sweeps at once are harmless). Returns how many this call expired.
    Run every second by the outcomes consumers (services/outcomes/consumer.py)."""
    now = int(time.time() * 1000)
    expired = 0
    for cid in await challenges.due(now):
        moved = await challenges.move(cid, "pending", "expired")
        ch = await challenges.get(cid)
        if ch is None:
            await challenges.redis.zrem(challenges.keys.challenges_due(bucket_of(cid)), cid)
            continue
        if moved == "accepting" and ch.expires_ms + STUCK_ACCEPT_S * 1000 <= now:
            moved = await challenges.move(cid, "accepting", "expired")
        elif moved not in ("ok", "accepting"):
            await challenges.redis.zrem(challenges.keys.challenges_due(bucket_of(cid)), cid)
        if moved == "ok":
            await tell_closed(challenges, events, ch, "expired")
            expired += 1
    return expired
