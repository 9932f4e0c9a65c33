"""A stream opened with an account's API key ends once that key stops working or the account stops holding what
the stream reads: the one mechanism of every stream an API key opens (the account stream
`GET /v1/players/me/events`, a game's SSE stream `GET /v1/games/{id}/events`, the public gRPC port's `WatchGame`).

Why re-check at all: a stream resolves its key to the seat's token once, when it opens, and the game-state service
only ever sees that token; a key revoked later (rotation with no grace or past it, `revoke-others`), or a seat the
account no longer holds (its token rotated by a guest), would otherwise go on reading the seat's hidden information
until the game ends.

How: `until_revoked` wraps the stream's items and asks `lost()` (`hold_lost`: the verification every unary call
makes, services/accounts/access.py, and the account's seats, services/accounts/seats.py) before it passes each
item on and at least every `CHECK_S` while none comes. A revocation is written to Redis before the call that
revokes answers (the key's cached lookup rewritten as revoked, the seat removed from the account's entry), and an
item is checked after it was read, so nothing written after a revocation is sent; an idle stream ends within
CHECK_S of it (a key whose grace runs out: within CHECK_S of the end of its grace, the cached lookup never outlives
it). A seat token's own streams end by the game-state service's check of the seat's token hash at each read
(services/gamestate/watch.py), which sees a rotation or a resignation in the same round trip as the entries.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from typing import TypeVar

from redis.asyncio import Redis
from redis.exceptions import RedisError
from sqlalchemy.exc import SQLAlchemyError

from services.accounts import seats
from services.accounts.access import key_owner
from services.accounts.keys import Keys
from services.accounts.repository import AccountRepository

#: Longest time between two checks of an idle stream's key (the whole bound: a revoked key's stream ends within
#: about this much, the 2 s promised by SECURITY.md with room for a loaded Redis).
CHECK_S = 0.5

T = TypeVar("T")


class Ended(Exception):
    """Why a stream opened with an API key ended: `code` is the error code its wire carries (REST's `error` event;
    gRPC maps it to a status); the message never holds the credential itself."""

    code = "unauthenticated"


class Revoked(Ended):
    """The key no longer works, or its account no longer holds the seat."""


class Unverified(Ended):
    """The key could not be checked (storage failed): the stream ends rather than go on unchecked; reconnecting
    checks the key afresh."""

    code = "unavailable"


@dataclass(frozen=True, slots=True)
class KeyHold:
    """What a stream opened with an API key was given: the key and its account, and for a game stream read as a
    seat the game and the seat (`seat` None: the account stream, or a game read as a spectator)."""

    api_key: str
    player_id: str
    game_id: str = ""
    seat: int | None = None


async def hold_lost(redis: Redis, keys: Keys, repo: AccountRepository, hold: KeyHold) -> str | None:
    """Why a stream opened with `hold` must end now, or None while the key works and the account holds the seat."""
    if await key_owner(redis, keys, repo, hold.api_key) != hold.player_id:
        return "this API key no longer works"
    if hold.seat is None:
        return None
    held = await seats.held(redis, keys, hold.player_id, hold.game_id)
    if held is None or hold.seat not in held.seats:
        return f"this account no longer holds seat {hold.seat} of game {hold.game_id}"
    return None


def checker(redis: Redis, keys: Keys, repo: AccountRepository,
            hold: KeyHold) -> Callable[[], Awaitable[str | None]]:
    """`lost()` for `until_revoked`: `hold_lost` of this hold against these accounts."""

    async def lost() -> str | None:
        return await hold_lost(redis, keys, repo, hold)

    return lost


async def until_revoked(items: AsyncIterator[T], lost: Callable[[], Awaitable[str | None]],
                        every_s: float = CHECK_S) -> AsyncIterator[T]:
    """`items` as they come, each passed on only once `lost()` said None after it arrived, and `lost()` asked at
    least every `every_s` meanwhile; Revoked (with what `lost()` said) the first time it says otherwise,
    Unverified if it fails. Closing this closes `items` (a gRPC call under it is cancelled)."""

    async def following() -> T:
        return await anext(items)

    pending: asyncio.Task[T] | None = None
    try:
        while True:
            if pending is None:
                pending = asyncio.ensure_future(following())
            done, _ = await asyncio.wait((pending,), timeout=every_s)
            try:
                why = await lost()
            except (RedisError, SQLAlchemyError, OSError) as exc:
                raise Unverified("the API key could not be checked (storage is unavailable); reconnect") from exc
            if why is not None:
                raise Revoked(why)
            if not done:
                continue
            arrived, pending = pending, None
            try:
                item = arrived.result()
            except StopAsyncIteration:
                return
            yield item
    finally:
        if pending is not None:  # the stream under it is mid-read: stop that read before closing it
            pending.cancel()
            await asyncio.wait((pending,))
            if not pending.cancelled():
                pending.exception()  # retrieved, so asyncio does not log it as never retrieved
        aclose = getattr(items, "aclose", None)
        if aclose is not None:
            await aclose()
