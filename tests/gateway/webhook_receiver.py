"""A real HTTP receiver for webhook tests (a threaded server on an ephemeral loopback port) and a deliverer the
test drives pass by pass, at clock values it chooses (services/webhooks/deliverer.py)."""

from __future__ import annotations

import asyncio
import random
import threading
import time
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import httpx

from services.accounts.events import AccountEvents
from services.accounts.keys import Keys
from services.common.redis_clients import async_redis
from services.gateway.settings import GatewaySettings
from services.webhooks.deliverer import Deliverer
from services.webhooks.store import WebhookStore
from tests.redis_required import CLUSTER


@dataclass
class Received:
    headers: dict[str, str]
    body: bytes
    path: str


class Receiver:
    """Records every POST; answers `status` (a list is used up in order, then its last value repeats), after
    `delay_s`."""

    def __init__(self, status: int | list[int] = 204, delay_s: float = 0.0):
        self.received: list[Received] = []
        self.statuses = status if isinstance(status, list) else [status]
        self.delay_s = delay_s
        #: requests being answered now, and the most there ever were at once
        self.active = self.most_active = 0
        self.lock = threading.Lock()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("content-length") or 0))
                with receiver.lock:
                    receiver.received.append(Received({k.lower(): v for k, v in self.headers.items()}, body,
                                                      self.path))
                    status = receiver.statuses.pop(0) if len(receiver.statuses) > 1 else receiver.statuses[0]
                    receiver.active += 1
                    receiver.most_active = max(receiver.most_active, receiver.active)
                try:
                    if receiver.delay_s:
                        time.sleep(receiver.delay_s)
                    self.send_response(status)
                    self.send_header("content-length", "0")
                    self.end_headers()
                finally:
                    with receiver.lock:
                        receiver.active -= 1

            def log_message(self, *_args) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hook"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def answer(self, status: int) -> None:
        with self.lock:
            self.statuses = [status]

    def ids(self) -> list[str]:
        with self.lock:
            return [r.headers["webhook-id"] for r in self.received]

    def wait(self, count: int, timeout: float = 20.0) -> list[Received]:
        deadline = time.monotonic() + timeout
        while len(self.received) < count:
            assert time.monotonic() < deadline, f"{len(self.received)} deliveries, not {count}"
            time.sleep(0.02)
        return list(self.received)

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


class Driver:
    """The gateway's accounts' deliverer, one pass per call at a clock value the test gives (ms)."""

    def __init__(self, settings: GatewaySettings, *, seed: int = 7, **kw):
        self.settings = settings
        self.rng = random.Random(seed)
        self.kw = {"allow_http_loopback": settings.webhooks_allow_http_loopback, "lease_s": 30.0, **kw}

    def run(self, now_ms: int | None = None) -> int:
        async def one() -> int:
            redis = async_redis(self.settings.redis_url, cluster=CLUSTER)
            keys = Keys(self.settings.key_prefix)
            store = WebhookStore(redis, keys, self.settings.webhook_key or "")
            events = AccountEvents(redis, keys, "", self.settings.account_events_maxlen,
                                   self.settings.account_events_keep_s)
            try:
                async with httpx.AsyncClient(timeout=10, trust_env=False) as http:
                    deliverer = Deliverer(redis, keys, store, events, http, rng=self.rng, **self.kw)
                    return await deliverer.pass_once(now_ms)
            finally:
                await redis.aclose()

        return asyncio.run(one())

    def until(self, predicate, timeout: float = 20.0) -> None:
        """Passes at the real clock until `predicate()` holds (the outcomes consumer queues asynchronously)."""
        deadline = time.monotonic() + timeout
        while not predicate():
            assert time.monotonic() < deadline, "the deliveries did not come"
            self.run()
            time.sleep(0.05)
