"""One Redis reader per followed account per gateway process feeds every open account stream of it
(GET /v1/players/me/events), so an open stream costs memory, not a Redis connection held in a blocking XREAD.

Each stream catches up on what it has not seen (a non-blocking read after its `Last-Event-ID`) once it has
joined the account's reader, which follows new entries only; and again if it falls behind
(services/common/stream_fanout.py).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

from services.accounts.events import AccountEvents
from services.common.stream_fanout import Fanout

#: (entry id, type, data) of one account stream entry, as AccountEvents.read returns them.
Batch = list[tuple[str, str, dict[str, Any]]]

#: Entries one catching-up read takes at once.
CATCH_UP = 100


def _id(entry_id: str) -> tuple[int, int]:
    ms, _, seq = entry_id.partition("-")
    return int(ms), int(seq or 0)


class AccountFanout:
    """The account readers of this gateway process."""

    def __init__(self, events: AccountEvents, block_ms: int) -> None:
        self.events = events
        self.block_ms = block_ms
        self.hubs: Fanout[Batch] = Fanout()

    async def follow(self, player_id: str, after: str) -> AsyncIterator[Batch]:
        """The account's entries after the id `after`, in order, in batches; an empty batch at least every
        `block_ms` (the caller re-checks its API key before passing each on: services/accounts/revocation.py)."""

        async def read(last: str) -> tuple[Batch, str]:
            batch = await self.events.read(player_id, last, self.block_ms)
            return batch, batch[-1][0] if batch else last

        sub = await self.hubs.subscribe(player_id, lambda: self.events.last_id(player_id), read)
        behind, seen = True, _id(after)
        try:
            while True:
                if sub.error is not None:
                    raise sub.error
                if behind or sub.behind:
                    sub.behind = False
                    batch = await self.events.read(player_id, after, None, CATCH_UP)
                    behind = len(batch) == CATCH_UP
                elif sub.ended:
                    return  # the process is stopping: the client reconnects with Last-Event-ID
                else:
                    queued = await sub.queue.get()
                    if queued is None:
                        continue
                    batch = queued
                fresh = [e for e in batch if _id(e[0]) > seen]
                if fresh:
                    after, seen = fresh[-1][0], _id(fresh[-1][0])
                yield fresh
        finally:
            self.hubs.unsubscribe(sub)

    async def stop(self) -> None:
        await self.hubs.stop()
