"""One Redis reader per followed stream key feeds every subscriber of that key in this process.

Why: a blocking XREAD holds a Redis connection for its whole wait, so one read per open stream made every
stream cost a connection (200 WatchGame streams of one game: 200 more Redis clients; ~10,000 reach Redis's
maxclients and starve every service). Here a key's subscribers share one reader (`_Hub`), which hands each
read to their bounded in-memory queues: a subscriber costs memory, not a connection. The reader stops,
freeing its connection, within one read of its last subscriber leaving.

The reader follows the key from its newest entry on; a subscriber catches up on older entries itself (a
non-blocking read) after joining, and again whenever it falls behind (its queue was full: reads it missed
were dropped, never buffered without bound). Used by WatchGame (services/gamestate/fanout.py) and the
gateway's account stream (services/gateway/domain/account_fanout.py).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Generic, TypeVar

from redis.exceptions import RedisError

log = logging.getLogger(__name__)

#: Reads a subscriber may have waiting before it is considered slow: it then drops them and re-reads what it
#: missed itself, so a stalled client never holds an unbounded queue.
QUEUE_READS = 64

R = TypeVar("R")


@dataclass(eq=False, slots=True)
class Subscription(Generic[R]):
    """One subscriber's place at its key's reader. `None` in the queue only wakes the subscriber up."""

    key: str
    queue: asyncio.Queue[R | None] = field(default_factory=lambda: asyncio.Queue(QUEUE_READS))
    #: reads were dropped because the queue was full: the subscriber must catch up from Redis itself
    behind: bool = False
    #: the reader stopped (the process is stopping, or Redis failed: `error`); nothing more is queued
    ended: bool = False
    error: BaseException | None = None

    def offer(self, item: R | None) -> None:
        try:
            self.queue.put_nowait(item)
        except asyncio.QueueFull:
            self.behind = True

    def wake(self) -> None:
        """Make a waiting subscriber look at its state now (its client went away, its reader ended)."""
        self.offer(None)


#: The newest entry id of a key ("0-0" if none): where its reader starts.
Tail = Callable[[], Awaitable[str]]
#: One blocking read after an entry id: (what to hand to the subscribers, the id to read after next).
Reader = Callable[[str], Awaitable[tuple[R, str]]]


class _Hub(Generic[R]):
    def __init__(self, key: str) -> None:
        self.key = key
        self.subs: set[Subscription[R]] = set()
        self.ready = asyncio.Event()  # the starting point is known: a subscriber may catch up from then on
        self.task: asyncio.Task[None] | None = None


class Fanout(Generic[R]):
    """Every key followed in this process, each with one reader (started by its first subscriber)."""

    def __init__(self, stopping: asyncio.Event | None = None) -> None:
        self.stopping = stopping or asyncio.Event()
        self._hubs: dict[str, _Hub[R]] = {}

    def subscribers(self) -> int:
        return sum(len(h.subs) for h in self._hubs.values())

    def readers(self) -> int:
        return len(self._hubs)

    def subscribers_of(self, key: str) -> set[Subscription[R]]:
        hub = self._hubs.get(key)
        return set(hub.subs) if hub else set()

    async def subscribe(self, key: str, tail: Tail, read: Reader[R]) -> Subscription[R]:
        """Join the key's reader (started with `tail` and `read` if there is none); from now on every read it
        makes is queued here. Returns once the reader's starting point is known: catch up after that."""
        hub = self._hubs.get(key)
        if hub is None:
            hub = self._hubs[key] = _Hub(key)
            hub.task = asyncio.create_task(self._run(hub, tail, read), name=f"fanout:{key}")
        sub: Subscription[R] = Subscription(key)
        hub.subs.add(sub)
        try:
            await hub.ready.wait()
        except BaseException:  # cancelled meanwhile: no ghost subscriber may keep the reader running
            hub.subs.discard(sub)
            raise
        return sub

    def unsubscribe(self, sub: Subscription[R]) -> None:
        """Leave at once; the reader stops after its current read if it was the last subscriber."""
        hub = self._hubs.get(sub.key)
        if hub is not None:
            hub.subs.discard(sub)

    async def _run(self, hub: _Hub[R], tail: Tail, read: Reader[R]) -> None:
        error: BaseException | None = None
        try:
            try:
                last = await tail()
            finally:
                hub.ready.set()
            while hub.subs and not self.stopping.is_set():
                item, last = await read(last)
                for sub in list(hub.subs):
                    sub.offer(item)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # Redis unavailable, mostly: every subscriber ends with it
            if not isinstance(exc, RedisError):
                log.exception("the reader of %s failed", hub.key)
            error = exc
        finally:
            if self._hubs.get(hub.key) is hub:
                del self._hubs[hub.key]
            for sub in list(hub.subs):
                sub.ended, sub.error = True, error
                sub.wake()

    async def stop(self) -> None:
        """Cancel every reader (shutdown)."""
        tasks = [h.task for h in self._hubs.values() if h.task is not None]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
