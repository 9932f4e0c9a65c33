"""Walking the per-bucket indexes (services/gamestate/keys.py) as if they were one sorted index.

Why apart: listings (newest games first) and the archiver (oldest finished games first) both need one bucketed
index in score order; a k-way merge that fetches each bucket a page at a time keeps that to a few pipelined round
trips however many buckets there are, on a standalone Redis and on a cluster alike."""

from __future__ import annotations

import heapq
from collections.abc import AsyncIterator, Callable, Sequence
from typing import Any

from services.gamestate.keys import BUCKETS

#: Entries fetched per bucket at a time.
PAGE = 50


async def per_bucket(redis: Any, queue: Callable[[Any, int], Any]) -> list[Any]:
    """One command per bucket, pipelined (a cluster client sends each node its buckets' commands at once)."""
    async with redis.pipeline(transaction=False) as pipe:
        for b in range(BUCKETS):
            queue(pipe, b)
        return await pipe.execute()


async def merged(
    redis: Any, indexes: Sequence[Callable[[int], str]], *, newest_first: bool, batch: int = 200
) -> AsyncIterator[list[tuple[str, float]]]:
    """The entries (member, score) of every bucket of `indexes` in score order, a batch at a time. A batch ends
    early when a bucket's page is used up, so no entry is yielded before an entry of that bucket that sorts first."""
    sign = -1 if newest_first else 1
    heads: list[tuple[float, str, str, int]] = []  # (sign * score, member, index key, next offset)

    async def fetch(pages: list[tuple[str, int]]) -> None:
        if not pages:
            return
        async with redis.pipeline(transaction=False) as pipe:
            for key, offset in pages:
                if newest_first:
                    pipe.zrevrange(key, offset, offset + PAGE - 1, withscores=True)
                else:
                    pipe.zrange(key, offset, offset + PAGE - 1, withscores=True)
            replies = await pipe.execute()
        for (key, offset), entries in zip(pages, replies):
            for i, (member, score) in enumerate(entries):
                heapq.heappush(heads, (sign * score, member, key, offset + i + 1))

    await fetch([(index(b), 0) for index in indexes for b in range(BUCKETS)])
    while heads:
        out: list[tuple[str, float]] = []
        refill: list[tuple[str, int]] = []
        while heads and len(out) < batch:
            signed, member, key, offset = heapq.heappop(heads)
            out.append((member, sign * signed))
            if offset % PAGE == 0:  # that bucket's page is used up: its next page before anything after it
                refill.append((key, offset))
                break
        yield out
        await fetch(refill)
