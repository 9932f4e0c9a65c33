"""One Redis reader per watched game feeds every WatchGame stream of that game in this process.

Why: a blocking XREAD holds a Redis connection for its whole wait, so one read per watcher made every open
stream cost a connection (200 streams of one game: 200 more Redis clients). Here a game's watchers share one
reader (services/common/stream_fanout.py), which hands each read to their bounded in-memory queues: a watcher costs
memory, not a connection. The reader stops, freeing its connection, within one read (at most `block_ms`) of its
last watcher leaving.

Strictness is unchanged from the per-watcher reads: the reader fetches every seat's token hash in the same
round trip as each read, after it (so a hash is never older than the entries it comes with), and every
watcher checks its own seat's hash before it is given that read's entries; redaction stays per watcher.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass

from services.common.stream_fanout import Fanout, Subscription
from services.gamestate.store import Store
from services.gamestate.updates import Update

#: Redis reads that opening or catching-up watchers may make at once: a burst of new streams (200 opened on
#: one connection) would otherwise grow the connection pool to its size, and pooled connections stay open.
WATCHER_READS = 8


@dataclass(frozen=True, slots=True)
class Entry(Update):
    """One stream entry, parsed once for every watcher (shared: never mutated); each watcher is sent a copy with
    the events its seat may see (services/gamestate/watch.py). `entry_id`: Redis's id ("" for a made-up one)."""

    entry_id: str = ""

    @classmethod
    def parse(cls, entry_id: str, f: dict[str, str]) -> Entry:
        return cls(int(f["v"]), f["kind"], int(f["actor"]) if f["actor"] != "" else None,
                   json.loads(f["events"]), f["status"], json.loads(f["to_act"]),
                   json.loads(f["scores"]) if f["status"] == "finished" else [], json.loads(f["winners"]),
                   entry_id)


@dataclass(frozen=True, slots=True)
class Read:
    """What one read returned: its entries (maybe none) and the seats' token hashes read just after them."""

    entries: tuple[Entry, ...]
    tokens: dict[int, str]


class GameFanout:
    """The game readers of one service instance: `Fanout` with a game's reads (entries and token hashes)."""

    def __init__(self, store: Store, block_ms: int, stopping: asyncio.Event) -> None:
        self.store = store
        self.block_ms = block_ms
        self.hubs: Fanout[Read] = Fanout(stopping)
        #: held by a watcher's own reads (its opening checks, catching up): see WATCHER_READS
        self.own_reads = asyncio.Semaphore(WATCHER_READS)

    def watchers(self) -> int:
        return self.hubs.subscribers()

    def readers(self) -> int:
        return self.hubs.readers()

    async def subscribe(self, game_id: str, players: int) -> Subscription[Read]:
        """Join the game's reader (starting it if needed); from now on every read it makes is queued here."""

        async def read(last: str) -> tuple[Read, str]:
            entries, hashes = await self.store.read_events_tokens(game_id, players, last, self.block_ms)
            got = Read(tuple(Entry.parse(eid, f) for eid, f in entries), hashes)
            return got, got.entries[-1].entry_id if got.entries else last

        return await self.hubs.subscribe(game_id, lambda: self.store.last_event_id(game_id), read)

    def unsubscribe(self, sub: Subscription[Read]) -> None:
        self.hubs.unsubscribe(sub)

    async def stop(self) -> None:
        await self.hubs.stop()
