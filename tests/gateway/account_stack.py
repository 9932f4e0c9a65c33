"""One game-state service whose public gRPC port knows the accounts of one gateway (its Redis prefix, its SQL), and
the `stack` (one a module) and `http` fixtures over it: the set-up the tests of accounts acting over gRPC share (API
keys, delegated seats, account deletion). A test module takes the fixtures by importing `stack_fixture` and
`http_fixture` into its namespace (named in its `__all__`, so the import reads as used).

Real gRPC, real HTTP, real Redis and PostgreSQL."""

from __future__ import annotations

import os
from collections.abc import Iterator

import grpc
import httpx
import pytest
import redis

from services.common.settings import Settings
from services.gamestate.pb import pb2_grpc
from services.gamestate.service import Registry
from tests.archive_db import shared_pg_url
from tests.gateway.conftest import Gateway, ServiceInstance, gateway_settings, new_prefix
from tests.redis_required import CLUSTER
from tests.service_secret import SERVICE_SECRET
from tests.services import toygame


class Stack:
    """A game-state service whose public port knows the accounts of one gateway (its Redis prefix, its SQL)."""

    def __init__(self, redis_url: str, accounts_redis_url: str | None = None, **limits: int) -> None:
        """`accounts_redis_url`: the gateway keeps its accounts in a Redis of its own, which the service is told
        of by ACCOUNTS_REDIS_URL (default: both on `redis_url`)."""
        prefix = new_prefix()
        settings = Settings(
            redis_url=redis_url, redis_cluster=CLUSTER, celery_broker_url=os.environ.get("CELERY_BROKER_URL"),
            grpc_addr="127.0.0.1:0", metrics_port=0, key_prefix=new_prefix(), dispatch_bots=False,
            service_secret=SERVICE_SECRET, watch_block_ms=200, shutdown_grace_s=0.5, zombie_bot_level="",
            accounts_url=shared_pg_url(), accounts_key_prefix=prefix, accounts_redis_url=accounts_redis_url,
            **({"rate_limit_ip": 0, "rate_limit_token": 0, "rate_limit_ip_ceiling": 0} | limits),
        )
        self.service = ServiceInstance(settings, Registry({toygame.GAME.name: toygame.GAME}))
        self.gateway = Gateway(gateway_settings(accounts_redis_url or redis_url, self.service, key_prefix=prefix,
                                                rate_limit_bot_token=1000))
        self.channel = grpc.insecure_channel(self.service.public_addr)
        self.stub = pb2_grpc.GameServiceStub(self.channel)

    def close(self) -> None:
        self.channel.close()
        self.gateway.stop()
        self.service.stop()


@pytest.fixture(scope="module", name="stack")
def stack_fixture(redis_url: str, rdb: redis.Redis) -> Iterator[Stack]:
    s = Stack(redis_url)
    yield s
    s.close()


@pytest.fixture(name="http")
def http_fixture(stack: Stack) -> Iterator[httpx.Client]:
    with stack.gateway.client() as c:
        yield c


def md(key: str, seat: int | str | None = None) -> tuple[tuple[str, str], ...]:
    """The call metadata of an API-key call (`seat`: which of the account's seats)."""
    return (("authorization", f"Bearer {key}"),) + ((("seat", str(seat)),) if seat is not None else ())
