"""One Redis stream per account: what GET /v1/players/me/events sends, resumable by stream id.

Why a Redis stream: any gateway can serve any reconnect (`Last-Event-ID` is the entry id), writers
(challenge routes, the outcomes consumer) need no connection to the reader, and the length is bounded
(`GATEWAY_ACCOUNT_EVENTS_MAXLEN`, and entries older than `GATEWAY_ACCOUNT_EVENTS_KEEP_S` are trimmed).

A `game_start` entry never holds a seat token: the token waits sealed (AES-256-GCM, `matchmaker.sealing`,
bound to the player and game) under its own key, and the one delivery that takes it (GETDEL) sends it;
every later replay of that entry says `token_delivered` with `token` null.

Why the trimming is a script and not XADD MAXLEN: trimming by length dropped the oldest entries whatever they
were, so a flood of challenges (or of turns) could drop an unread `game_start` whose sealed token then had no
entry to deliver it: the challenger's only seat token, lost. `ADD` trims exactly to the length, oldest first,
but skips the entries that carry a pending token (`"token_pending":true`); those go only with age (their sealed
token expires with them, GATEWAY_ACCOUNT_EVENTS_KEEP_S), so the stream may exceed its length by the number of
undelivered game starts, which the game quotas bound.
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping
from typing import Any

from redis.asyncio import Redis

from services.accounts.keys import Keys
from services.accounts.sealing import seal, unseal
from services.common.redis_scripts import LuaScript

#: The event types of the account stream.
TYPES = ("challenge", "challenge_closed", "game_start", "your_turn", "game_end", "webhook_disabled")

#: The event types a webhook may take (services/webhooks/): four of the account stream's concepts, each delivered
#: from the entry that puts it on the stream (`webhook_type`), so a webhook and the stream never disagree.
WEBHOOK_TYPES = ("your_turn", "game_end", "challenge", "match_found")


def webhook_type(kind: str, data: Mapping[str, Any]) -> str:
    """The webhook event type of an account-stream entry ("" for none): a `game_start` made by the matchmaker (it
    names its ticket) is `match_found`; `your_turn`, `game_end` and `challenge` are themselves."""
    if kind == "game_start":
        return "match_found" if data.get("ticket_id") else ""
    return kind if kind in WEBHOOK_TYPES else ""


def append_keys(keys: Keys, player_id: str) -> dict[str, str]:
    """The keys besides the stream that every append to an account stream passes: where its webhook deliveries
    are routed and queued (lua/webhook_enqueue.lua)."""
    return {"stream": keys.account_events(player_id), "routes": keys.webhook_routes(player_id),
            "due": keys.webhook_due(player_id), "jobs": keys.webhook_jobs(player_id)}

#: What the data of an entry that carries a credential holds (compact JSON, as `add_to` writes it).
CREDENTIAL_MARK = '"token_pending":true'

#: Adds one event, trimmed by length (sparing entries with CREDENTIAL_MARK: lua/append.lua) and age.
ADD = LuaScript.beside(__file__, "account_add")
#: the outcomes consumer's exactly-once append of one version's events (services/outcomes/consumer.py): it
#: shares `append` with ADD, so both scripts live beside this module
PUBLISH_TURNS = LuaScript.beside(__file__, "follow_publish")


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


def _handoff_ad(player_id: str, game_id: str) -> str:
    return f"account:{player_id}:game:{game_id}"


class AccountEvents:
    def __init__(self, redis: Redis, keys: Keys, secret: str, maxlen: int, keep_s: int):
        self.redis = redis
        self.keys = keys
        self.secret = secret
        self.maxlen = maxlen
        self.keep_s = keep_s

    def add_to(self, pipe: Any, player_id: str, kind: str, data: Mapping[str, Any]) -> None:
        """Queue one event on `pipe` (a pipeline), bounded by length (sparing pending tokens) and age."""
        min_id = f"{int((time.time() - self.keep_s) * 1000)}-0"
        ADD.queue(pipe, keys=append_keys(self.keys, player_id),
                  args={"type": kind, "data": json.dumps(data, separators=(",", ":")), "maxlen": self.maxlen,
                        "minid": min_id, "ttl": self.keep_s, "hook": webhook_type(kind, data)})

    async def publish(self, player_id: str, kind: str, data: Mapping[str, Any]) -> None:
        async with self.redis.pipeline(transaction=True) as pipe:
            self.add_to(pipe, player_id, kind, data)
            await pipe.execute()

    def hand_off(self, pipe: Any, player_id: str, game_id: str, token: str) -> None:
        """Queue the sealed seat token that the account's next `game_start` delivery of `game_id` takes."""
        sealed = seal(self.secret, _handoff_ad(player_id, game_id), token)
        pipe.set(self.keys.handoff(player_id, game_id), sealed, ex=self.keep_s)

    async def read(
        self, player_id: str, after: str, block_ms: int | None, count: int = 100
    ) -> list[tuple[str, str, dict]]:
        """(entry id, type, data) after the entry id `after` ("0-0": everything kept), waiting up to block_ms
        (None: not at all)."""
        reply = await self.redis.xread({self.keys.account_events(player_id): after}, count=count, block=block_ms)
        out = []
        for _stream, entries in reply or []:
            for entry_id, fields in entries:
                f = {_text(k): _text(v) for k, v in fields.items()}
                out.append((_text(entry_id), f["type"], json.loads(f["data"])))
        return out

    async def last_id(self, player_id: str) -> str:
        """The newest entry id ("0-0" when the stream is empty)."""
        entries = await self.redis.xrevrange(self.keys.account_events(player_id), count=1)
        return _text(entries[0][0]) if entries else "0-0"

    async def take_handoff(self, player_id: str, game_id: str) -> str | None:
        """The seat token waiting for the account's `game_start` of `game_id`, taken (None if none waits)."""
        sealed = await self.redis.getdel(self.keys.handoff(player_id, game_id))
        return unseal(self.secret, _handoff_ad(player_id, game_id), _text(sealed)) if sealed else None

    async def deliver(self, player_id: str, kind: str, data: dict) -> dict:
        """The event as sent: a `game_start` gets its seat token if this is the delivery that takes it."""
        if kind != "game_start" or not data.get("token_pending"):
            return data
        out = {k: v for k, v in data.items() if k != "token_pending"}
        token = await self.take_handoff(player_id, data["game_id"])
        out["token"] = token
        out["token_delivered"] = True
        if token is None:
            out["note"] = "the seat token was handed out by an earlier delivery of this event and is never shown again"
        return out
