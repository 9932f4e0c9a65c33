"""WatchGame: a game's redacted change stream, from any version, fed by one shared Redis reader per game.

Why apart: the stream loop is the service's one long-lived call; it never changes a game, and its care is
ordering, gaps and ending a stream the moment its seat token is revoked."""

from __future__ import annotations

import asyncio
import dataclasses
import secrets
import time
from collections.abc import AsyncIterator, Callable

from services.common.waits import within
from services.gamestate import errors, metrics, tokens
from services.gamestate.fanout import Entry, GameFanout, Read
from services.gamestate.lookup import Lookup
from services.gamestate.moves import redact
from services.gamestate.records import Meta
from services.gamestate.updates import ARCHIVED, HEARTBEAT

#: Entries one catching-up read of a watcher takes at once.
CATCH_UP = 100


class Watch:
    """Opens watch streams on the game fanout (services/gamestate/fanout.py)."""

    def __init__(self, lookup: Lookup, fanout: GameFanout, stopping: asyncio.Event, heartbeat_s: float):
        self.lookup = lookup
        self.store = lookup.store
        self.fanout = fanout
        self.stopping = stopping
        self.heartbeat_s = heartbeat_s

    async def watch(
        self,
        game_id: str,
        token: str,
        after_version: int | None,
        gone: Callable[[], bool] = lambda: False,
        on_gone: Callable[[Callable[[], None]], None] | None = None,
    ) -> AsyncIterator[Entry]:
        """Redacted stream entries after `after_version` (all from creation if None), in order; heartbeats (kind
        "heartbeat") while idle, and an archived game's end alone (kind "archived").

        `gone()` tells whether the watcher has disconnected, and `on_gone(wake)` (if given) registers a call
        made the moment it does, so a closed stream leaves its game's reader at once. A stream opened with a
        human seat token ends with UNAUTHENTICATED once that token is revoked (RotateToken, Resign): see `_watch`.
        """
        async with self.fanout.own_reads:
            meta = await self.lookup.meta(game_id)
            seat = await self.lookup.seat(meta, token, required=False)
        if after_version is not None and after_version < 0:
            raise errors.invalid("after_version must be >= 0")
        if meta.ended and after_version is not None and after_version >= meta.version:
            return _empty()  # nothing after the end: the stream ends at once
        if meta.archived:
            return _archived_end(meta)  # its event stream left with Redis: the final state alone
        # a seat token is watched by the hash it resolved by (spectators have none)
        watched = tokens.token_hash(token) if seat is not None else None
        return self._watch(meta, seat, after_version, gone, watched, on_gone)

    async def _watch(
        self,
        meta: Meta,
        seat: int | None,
        after_version: int | None,
        gone: Callable[[], bool],
        token_hash: str | None = None,
        on_gone: Callable[[Callable[[], None]], None] | None = None,
    ) -> AsyncIterator[Entry]:
        """The stream loop, fed by the game's shared reader (`self.fanout`, services/gamestate/fanout.py).

        It first catches up on its own (XRANGE, no waiting) and again whenever it finds a gap (it fell behind).
        Every read, shared or its own, comes with the seats' token hashes read after its entries; with
        `token_hash` (a human seat's watcher) the stream ends with UNAUTHENTICATED as soon as its seat's hash is
        no longer `token_hash`, before it is given that read's entries: so no entry written after the revocation
        (e.g. the seat's auto-played secrets after Resign) reaches it. Reads come at least every
        min(watch_block_ms, token_check_ms)."""
        game_id, players = meta.game_id, meta.players
        done = -1 if after_version is None else after_version  # the last version this watcher has
        version, status, to_act = after_version or 0, "active", []
        last_sent = time.monotonic()
        sub = await self.fanout.subscribe(game_id, players)
        metrics.WATCHERS.inc()
        if on_gone is not None:
            on_gone(sub.wake)
        behind = True  # catch up from Redis first: the shared reader only follows new entries
        try:
            while not self.stopping.is_set():
                if gone():
                    return
                if sub.error is not None:
                    raise sub.error
                if behind or sub.behind:
                    sub.behind = False
                    async with self.fanout.own_reads:
                        entries, hashes = await self.store.range_events_tokens(
                            game_id, players, f"{done}-1" if done >= 0 else "0-0", CATCH_UP)
                    read = Read(tuple(Entry.parse(eid, f) for eid, f in entries), hashes)
                    behind = len(entries) == CATCH_UP
                elif sub.ended:
                    raise errors.unavailable("the service is shutting down; resume with after_version")
                else:
                    try:
                        queued = await within(sub.queue.get(), self.fanout.block_ms / 1000 + 1.0)
                    except TimeoutError:  # the reader is slow (Redis is): read for ourselves meanwhile
                        behind = True
                        continue
                    if queued is None:  # only a wake-up: look at gone(), the reader's end
                        continue
                    read = queued
                if token_hash is not None and seat is not None:
                    current = read.tokens.get(seat)
                    if current is None or not secrets.compare_digest(current, token_hash):
                        raise errors.unauthenticated("seat token revoked")
                sent = False
                for entry in read.entries:
                    if entry.version <= done:
                        continue  # already sent (caught up past this shared read)
                    if entry.version != done + 1:
                        behind = True  # a gap: read the missing entries ourselves
                        break
                    done = entry.version
                    yield dataclasses.replace(entry, events=redact(entry.events, seat))
                    version, status, to_act, last_sent, sent = entry.version, entry.status, entry.to_act, \
                        time.monotonic(), True
                    if entry.status != "active":  # finished or aborted: nothing follows
                        return
                if not sent and time.monotonic() - last_sent >= self.heartbeat_s:
                    # Idle: a heartbeat keeps proxies open and is how a vanished watcher is noticed
                    # (writing to a cancelled stream ends this handler).
                    yield Entry(version, HEARTBEAT, None, [], status, to_act, [], [])
                    last_sent = time.monotonic()
            raise errors.unavailable("the service is shutting down; resume with after_version")
        finally:
            self.fanout.unsubscribe(sub)
            metrics.WATCHERS.dec()


async def _empty() -> AsyncIterator[Entry]:
    return
    yield  # an async generator that yields nothing


async def _archived_end(meta: Meta) -> AsyncIterator[Entry]:
    """The stream of an archived game: one entry with its final state (its events were not archived)."""
    yield Entry(meta.version, ARCHIVED, None, [], meta.status, [], meta.scores, meta.winners)
