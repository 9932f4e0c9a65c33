"""Health probes of every role, shared by the local stack and the container health checks.

`python -m services.common.healthcheck grpc HOST:PORT | http URL | celery NODE | redis URL`
exits 0 when healthy and 1 otherwise, printing why; Docker and Kubernetes call
it inside the container, `services.dev.stack` calls the functions directly.
`SharedCheck` is what a server's own readiness endpoint answers from (the gateway's /readyz).
"""

from __future__ import annotations

import asyncio
import http.client
import math
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Awaitable, Callable
from typing import Generic, TypeVar

import grpc
import redis
from grpc_health.v1 import health_pb2, health_pb2_grpc


def grpc_serving(target: str, timeout: float = 2.0) -> bool:
    """The standard gRPC health check of `target` answers SERVING."""
    with grpc.insecure_channel(target) as channel:
        try:
            reply = health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest(service=""),
                                                              timeout=timeout)
        except grpc.RpcError:
            return False
    return reply.status == health_pb2.HealthCheckResponse.SERVING


def http_ok(url: str, timeout: float = 2.0) -> bool:
    """GET `url` answers 200. Whatever else answers there (nothing, an error, a server of another protocol such as
    a gRPC listener on the same port) is not healthy: the probe reports it, never raises it."""
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:
            return response.status == 200
    except (urllib.error.URLError, http.client.HTTPException, OSError):
        return False


def celery_pong(node: str, broker_url: str | None = None, timeout: float = 1.0) -> bool:
    """The Celery worker `node` (e.g. worker@host) answers a broadcast ping on the broker."""
    from services.common.celery_app import make_celery
    from services.common.settings import Settings

    settings = Settings(celery_broker_url=broker_url) if broker_url else Settings()
    app = make_celery(settings)
    try:
        replies = app.control.ping(destination=[node], timeout=timeout)
    except Exception:  # the broker is unreachable: not healthy
        return False
    finally:
        app.close()
    return any(node in reply for reply in replies)


def redis_answers(url: str, timeout: float = 1.0) -> bool:
    """Redis at `url` answers PING."""
    try:
        client = redis.Redis.from_url(url, socket_connect_timeout=timeout, socket_timeout=timeout)
        try:
            return bool(client.ping())
        finally:
            client.close()
    except (redis.RedisError, OSError):
        return False


T = TypeVar("T")


class SharedCheck(Generic[T]):
    """An async probe of a server's backends whose answer is shared: callers that arrive while it runs await that
    one run, and its answer serves every caller for `ttl_s` after it ended.

    Why: a readiness endpoint is never rate-limited (orchestrators must always reach it), so if every call probed
    the backends, a flood of calls would become a flood of backend round trips. Shared, the backends see at most one
    probe per `ttl_s` per process, however many callers there are; a change of health shows within `ttl_s`. A
    caller that goes away does not cancel the run the others wait on."""

    def __init__(self, probe: Callable[[], Awaitable[T]], ttl_s: float) -> None:
        self._probe = probe
        self.ttl_s = ttl_s
        self._run: asyncio.Future[T] | None = None
        self._ended_at = -math.inf

    async def get(self) -> T:
        run = self._run
        if run is None or (run.done() and time.monotonic() - self._ended_at >= self.ttl_s):
            run = self._run = asyncio.ensure_future(self._probe_once())
        return await asyncio.shield(run)

    async def _probe_once(self) -> T:
        try:
            return await self._probe()
        finally:
            self._ended_at = time.monotonic()


CHECKS = {"grpc": grpc_serving, "http": http_ok, "celery": celery_pong, "redis": redis_answers}


def main(argv: list[str]) -> int:
    if len(argv) != 2 or argv[0] not in CHECKS:
        print(f"usage: python -m services.common.healthcheck {{{'|'.join(CHECKS)}}} TARGET", file=sys.stderr)
        return 2
    kind, target = argv
    ok = CHECKS[kind](target)
    print(f"{kind} {target}: {'healthy' if ok else 'NOT healthy'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
