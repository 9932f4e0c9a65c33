"""gRPC health follows the storage: NOT_SERVING while Redis is down, SERVING once it is back."""

from __future__ import annotations

import time

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

from services.gamestate.server import LIVENESS, SERVICE_NAME


def _status(target: str, name: str) -> int:
    with grpc.insecure_channel(target) as channel:
        stub = health_pb2_grpc.HealthStub(channel)
        return stub.Check(health_pb2.HealthCheckRequest(service=name), timeout=5).status


def _wait_for(target: str, wanted: int, seconds: float = 10.0) -> list[int]:
    deadline = time.monotonic() + seconds
    seen = []
    while time.monotonic() < deadline:
        seen = [_status(target, name) for name in ("", SERVICE_NAME)]
        if seen == [wanted, wanted]:
            return seen
        time.sleep(0.1)
    return seen


def test_readiness_is_not_serving_while_redis_is_down_and_serving_after(make_instance, private_redis):
    serving = health_pb2.HealthCheckResponse.SERVING
    not_serving = health_pb2.HealthCheckResponse.NOT_SERVING
    inst = make_instance(redis_url=private_redis.url, dispatch_bots=False, health_check_s=0.2)
    assert _wait_for(inst.target, serving) == [serving, serving]
    private_redis.kill()
    assert _wait_for(inst.target, not_serving) == [not_serving, not_serving]
    assert _status(inst.target, LIVENESS) == serving, "liveness must not restart an instance for a Redis outage"
    private_redis.start()
    assert _wait_for(inst.target, serving) == [serving, serving]
