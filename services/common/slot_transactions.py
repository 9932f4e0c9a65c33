"""Writes that a standalone Redis runs as one MULTI and a Redis Cluster runs as one MULTI per slot.

Why: a cluster refuses a transaction whose keys are in different slots (docs/decisions/redis-cluster.md). Where one
operation writes to several accounts (a challenge's events to both players, a new game listed in each seated account),
each account's writes stay atomic together (a sealed seat token and the `game_start` that delivers it), while writes to
two accounts may land one after the other. On a standalone Redis nothing changes: every group shares one MULTI.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

import redis.asyncio.cluster as aiocluster
from redis.exceptions import RedisError


def is_cluster(client: Any) -> bool:
    """True for a Redis Cluster client (services/common/redis_clients.py: `async_redis(url, cluster=True)`)."""
    return isinstance(client, aiocluster.RedisCluster)


async def cluster_ready(client: Any) -> None:
    """Read a cluster client's slot map before it serves concurrent calls: redis-py 8.1's asyncio cluster client,
    used first by many tasks at once, fails some of them (AttributeError on a connection another task reset;
    tests/cluster/test_edge_keys.py). Nothing for a standalone client; a cluster not answering yet is left to the
    first call (and to /readyz)."""
    if is_cluster(client):
        with contextlib.suppress(RedisError):
            await client.initialize()


class SlotTransactions:
    """`on(tag)` gives the pipeline to queue a group's commands on (`tag`: the hash tag all of them share);
    `execute()` runs them, one transaction per tag on a cluster, one for all on a standalone Redis."""

    def __init__(self, client: Any):
        self.client = client
        self.cluster = is_cluster(client)
        self._pipes: dict[str, Any] = {}

    def on(self, tag: str) -> Any:
        group = tag if self.cluster else ""
        if group not in self._pipes:
            self._pipes[group] = self.client.pipeline(transaction=True)
        return self._pipes[group]

    async def execute(self) -> list[Any]:
        """Every group's replies, in the order the groups were first named."""
        pipes = list(self._pipes.values())
        self._pipes = {}
        try:
            return await asyncio.gather(*(p.execute() for p in pipes))
        finally:
            for p in pipes:
                await p.reset()
