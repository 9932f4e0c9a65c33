"""The game-state clients spread calls over every address of their target (round_robin), which is what
the gateway's `dns:///gamestate:50051` (compose) and `dns:///gamestate-headless:50051` (Kubernetes) rely
on to use every replica; the default pick_first would send everything to one."""

from __future__ import annotations

import asyncio
from collections import Counter
from concurrent import futures

import grpc
import pytest
from grpc_health.v1 import health, health_pb2, health_pb2_grpc

from services.gamestate.client import AsyncGameClient
from services.gamestate.client_sync import GameClient

SERVING, NOT_SERVING = health_pb2.HealthCheckResponse.SERVING, health_pb2.HealthCheckResponse.NOT_SERVING


@pytest.fixture
def two_replicas():
    """Two health servers on loopback that answer differently, so each reply says who served it."""
    servers, ports = [], []
    for status in (SERVING, NOT_SERVING):
        server = grpc.server(futures.ThreadPoolExecutor(max_workers=2))
        servicer = health.HealthServicer()
        servicer.set("", status)
        health_pb2_grpc.add_HealthServicer_to_server(servicer, server)
        ports.append(server.add_insecure_port("127.0.0.1:0"))
        server.start()
        servers.append(server)
    yield f"ipv4:127.0.0.1:{ports[0]},127.0.0.1:{ports[1]}"
    for server in servers:
        server.stop(0)


def test_sync_client_round_robins_over_every_address(two_replicas):
    with GameClient(two_replicas, timeout=5) as client:
        stub = health_pb2_grpc.HealthStub(client.channel)
        grpc.channel_ready_future(client.channel).result(timeout=10)
        seen = Counter(stub.Check(health_pb2.HealthCheckRequest(service=""), timeout=5).status for _ in range(20))
    assert seen[SERVING] >= 5 and seen[NOT_SERVING] >= 5, seen


def test_async_client_round_robins_over_every_address(two_replicas):
    async def calls() -> Counter:
        client = AsyncGameClient(two_replicas, timeout=5)
        try:
            stub = health_pb2_grpc.HealthStub(client.channel)
            await asyncio.wait_for(client.channel.channel_ready(), 10)
            return Counter([(await stub.Check(health_pb2.HealthCheckRequest(service=""), timeout=5)).status
                            for _ in range(20)])
        finally:
            await client.close()

    seen = asyncio.run(calls())
    assert seen[SERVING] >= 5 and seen[NOT_SERVING] >= 5, seen


def test_pick_first_would_pin_one_replica(two_replicas):
    """The control: without round_robin every call goes to one server (why the option matters)."""
    with GameClient(two_replicas, timeout=5, lb_policy="pick_first") as client:
        stub = health_pb2_grpc.HealthStub(client.channel)
        seen = Counter(stub.Check(health_pb2.HealthCheckRequest(service=""), timeout=5).status for _ in range(20))
    assert len(seen) == 1, seen
