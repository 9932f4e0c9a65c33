"""One Redis reader per watched game feeds every WatchGame stream of that game in this process.

Why: a blocking XREAD holds a Redis connection for its whole wait, so one read per watcher made every open
stream cost a connection (200 streams of one game: 200 more Redis clients; ~10,000 reach Redis's maxclients
and starve every service). Here a game's watchers share one reader (`_Hub`), which hands each read to their
in-memory queues: a watcher costs memory, not a connection. The reader stops, freeing its connection, within
one read (at most `block_ms`) of its last watcher leaving.

Strictness is unchanged from the per-watcher reads: the reader fetches every seat's token hash in the same
round trip as each read, after it (so a hash is never older than the entries it comes with), and every
watcher checks its own seat's hash before it is given that read's entries; redaction stays per watcher.
"""

from __future__ import annotations

import asyncio
import json
import logging
from dataclasses import dataclass, field
from typing import Any

from redis.exceptions import RedisError

from services.gamestate.store import Store

log = logging.getLogger(__name__)

#: Reads a watcher may have waiting before it is considered slow: it then drops them and re-reads what it
#: missed itself (XRANGE), so a stalled client never holds an unbounded queue.
QUEUE_READS = 64

#: Redis reads that opening or catching-up watchers may make at once: a burst of new streams (200 opened on
#: one connection) would otherwise grow the connection pool to its size, and pooled connections stay open.
WATCHER_READS = 8


@dataclass(frozen=True, slots=True)
class Entry:
    """One stream entry, parsed once for every watcher (shared: never mutated)."""

    entry_id: str
    version: int
    kind: str
    actor: int | None
    events: list[dict[str, Any]]
    status: str
    to_act: list[int]
    scores: list[int]
    winners: list[int]

    @classmethod
    def parse(cls, entry_id: str, f: dict[str, str]) -> Entry:
        return cls(entry_id, int(f["v"]), f["kind"], int(f["actor"]) if f["actor"] != "" else None,
                   json.loads(f["events"]), f["status"], json.loads(f["to_act"]),
                   json.loads(f["scores"]) if f["status"] == "finished" else [], json.loads(f["winners"]))


@dataclass(frozen=True, slots=True)
class Read:
    """What one read returned: its entries (maybe none) and the seats' token hashes read just after them."""

    entries: tuple[Entry, ...]
    tokens: dict[int, str]


@dataclass(eq=False, slots=True)
class Subscription:
    """One watcher's place at its game's reader."""

    game_id: str
    queue: asyncio.Queue[Read] = field(default_factory=lambda: asyncio.Queue(QUEUE_READS))
    #: reads were dropped because the queue was full: the watcher must catch up from Redis itself
    behind: bool = False
    #: the reader stopped (the service is stopping, or Redis failed: `error`); nothing more is queued
    ended: bool = False
    error: BaseException | None = None

    def offer(self, item: Read) -> None:
        try:
            self.queue.put_nowait(item)
        except asyncio.QueueFull:
            self.behind = True

    def wake(self) -> None:
        """Make a waiting watcher look at its state now (its client went away, its reader ended)."""
        self.offer(WAKE)


class _Hub:
    """The reader of one game: follows its event stream from the newest entry on, broadcasting every read."""

    def __init__(self, game_id: str, players: int) -> None:
        self.game_id = game_id
        self.players = players
        self.subs: set[Subscription] = set()
        self.ready = asyncio.Event()  # the starting point is known: a watcher may catch up from then on
        self.task: asyncio.Task[None] | None = None


class Fanout:
    """Every game watched in this process, each with one reader (started by its first watcher)."""

    def __init__(self, store: Store, block_ms: int, stopping: asyncio.Event) -> None:
        self.store = store
        self.block_ms = block_ms
        self.stopping = stopping
        self._hubs: dict[str, _Hub] = {}
        #: held by a watcher's own reads (its opening checks, catching up): see WATCHER_READS
        self.own_reads = asyncio.Semaphore(WATCHER_READS)

    def watchers(self) -> int:
        return sum(len(h.subs) for h in self._hubs.values())

    def readers(self) -> int:
        return len(self._hubs)

    async def subscribe(self, game_id: str, players: int) -> Subscription:
        """Join the game's reader (starting it if needed); from now on every read it makes is queued here."""
        hub = self._hubs.get(game_id)
        if hub is None:
            hub = self._hubs[game_id] = _Hub(game_id, players)
            hub.task = asyncio.create_task(self._run(hub), name=f"fanout:{game_id}")
        sub = Subscription(game_id)
        hub.subs.add(sub)
        await hub.ready.wait()
        return sub

    def unsubscribe(self, sub: Subscription) -> None:
        """Leave at once; the reader stops after its current read if it was the last watcher."""
        hub = self._hubs.get(sub.game_id)
        if hub is not None:
            hub.subs.discard(sub)

    async def _run(self, hub: _Hub) -> None:
        error: BaseException | None = None
        try:
            try:
                last = await self.store.last_event_id(hub.game_id)
            finally:
                hub.ready.set()
            while hub.subs and not self.stopping.is_set():
                entries, tokens = await self.store.read_events_tokens(hub.game_id, hub.players, last, self.block_ms)
                read = Read(tuple(Entry.parse(eid, f) for eid, f in entries), tokens)
                if read.entries:
                    last = read.entries[-1].entry_id
                for sub in list(hub.subs):
                    sub.offer(read)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # Redis unavailable, mostly: every watcher ends with it (UNAVAILABLE)
            if not isinstance(exc, RedisError):
                log.exception("the reader of game %s failed", hub.game_id)
            error = exc
        finally:
            if self._hubs.get(hub.game_id) is hub:
                del self._hubs[hub.game_id]
            for sub in list(hub.subs):
                sub.ended, sub.error = True, error
                sub.wake()

    async def stop(self) -> None:
        tasks = [h.task for h in self._hubs.values() if h.task is not None]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


#: An empty read: only wakes a watcher up.
WAKE = Read((), {})
