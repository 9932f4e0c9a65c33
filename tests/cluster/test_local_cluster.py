"""The Redis Cluster harness and the clients' failover patience (docs/decisions/redis-cluster.md): a real cluster of
Debian's `redis-server`, 3 primaries and 3 replicas; a primary is SIGKILLed and both clients carry on once its replica
has been promoted, without the caller retrying."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator

import pytest

from services.common.redis_clients import async_redis, sync_redis
from services.dev.local_cluster import LocalCluster


@pytest.fixture
def cluster() -> Iterator[LocalCluster]:
    with LocalCluster() as running:
        yield running


def test_cluster_serves_every_slot_with_a_replica_per_primary(cluster: LocalCluster) -> None:
    assert len(cluster.primary_ports()) == 3
    assert len(cluster.live_ports()) == 6
    client = sync_redis(cluster.url, cluster=True, decode_responses=True)
    # keys spread over all three primaries; a hash tag keeps two keys in one slot
    for i in range(60):
        client.set(f"t:{{g{i}}}:a", i)
    owners = {client.get_node_from_key(f"t:{{g{i}}}:a").port for i in range(60)}
    assert owners == set(cluster.primary_ports())
    assert client.keyslot("t:{g1}:a") == client.keyslot("t:{g1}:b")


def test_both_clients_survive_a_primary_killed_mid_use(cluster: LocalCluster) -> None:
    sync_client = sync_redis(cluster.url, cluster=True, decode_responses=True)
    sync_client.set("t:{g7}:v", "before")
    victim = sync_client.get_node_from_key("t:{g7}:v").port
    # the write reached the replica before the crash (what WAIT guarantees: no acknowledged write lost)
    assert sync_client.execute_command("WAIT", 1, 2000, target_nodes=sync_client.get_node_from_key("t:{g7}:v")) == 1

    async def read_and_write() -> tuple[str, float]:
        client = async_redis(cluster.url, cluster=True, decode_responses=True)
        assert await client.get("t:{g7}:v") == "before"
        cluster.kill(victim)
        started = time.monotonic()
        value = await client.get("t:{g7}:v")  # blocks through the failover
        await client.set("t:{g7}:v", "after")
        await client.aclose()
        return value, time.monotonic() - started

    value, took = asyncio.run(read_and_write())
    assert value == "before"
    assert took < 8.0
    assert sync_client.get("t:{g7}:v") == "after"
    cluster.wait_healthy()
    assert victim not in cluster.primary_ports()
