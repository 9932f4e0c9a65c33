"""The webhook deliverer: sends each queued delivery to its endpoint, signed, and records how it went.

Deliveries are queued by the append to the account stream itself (services/accounts/lua/webhook_enqueue.lua), in
the account's slot: one per event and webhook, exactly when the event is appended. A pass walks the accounts that
hold webhooks (`wh:accounts:{w:<n>}`), leases each one's due deliveries (take.lua: due again when the lease ends),
sends them, and records each attempt (record.lua, only while the lease is still this deliverer's):

- a 2xx answer: delivered, the queue entry gone;
- anything else (an error status, a timeout, a refused address): tried again after an exponential backoff with
  jitter (schedule.py), for up to `retry_for_s` after it was queued, then given up;
- an endpoint failing without a success since `disable_after_s` is disabled, its queue dropped, and a
  `webhook_disabled` event goes on the account's stream.

At most `per_endpoint` deliveries are in flight at once to one endpoint (one registered webhook), so a burst of
an account's events does not hit its receiver with more connections than it may accept, and one account's burst
takes no more of the deliverer than that; a due delivery beyond the bound is not leased and stays due for a later
pass (the next one starts as soon as a delivery ends). The bound is per deliverer process and per webhook: a
receiver behind several webhooks (of one account or many) gets up to the bound from each. Each delivery connects
to exactly an address its host was checked to resolve to (services/webhooks/pinning.py: no second resolution, TLS
still verified for the host name).

A deliverer killed mid-pass (SIGKILL) loses nothing: what it leased is due again when the lease ends and another
pass sends it, under the same `webhook-id`, so a receiver that keeps the ids it handled (as the spec asks) acts
on each event once; only the deliveries in flight at the kill can arrive twice. Several deliverers may run:
the lease gives each delivery to one of them at a time.
"""

from __future__ import annotations

import asyncio
import datetime
import json
import logging
import random
import time
from dataclasses import dataclass
from typing import Any

import httpx
from redis.asyncio import Redis

from services.accounts.events import AccountEvents
from services.accounts.keys import WEBHOOK_ACCOUNTS, Keys
from services.webhooks import metrics, signing, urls
from services.webhooks.pinning import pinned
from services.webhooks.schedule import next_due_ms
from services.webhooks.store import RECORD, TAKE, Webhook, WebhookStore

log = logging.getLogger(__name__)


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


def body_of(job: dict[str, Any]) -> bytes:
    """The payload of a delivery, the same bytes on every attempt: the Standard Webhooks shape `{type, timestamp,
    data}`, `timestamp` the event's (ISO 8601, UTC), `data` what the account stream carries."""
    at = datetime.datetime.fromtimestamp(job["at_ms"] / 1000, datetime.UTC)
    stamp = at.isoformat(timespec="milliseconds").replace("+00:00", "Z")
    return json.dumps({"type": job["type"], "timestamp": stamp, "data": job["data"]},
                      separators=(",", ":")).encode()


def message_id(webhook_id: str, event_id: str) -> str:
    """The `webhook-id` of an event's delivery to one webhook: that webhook's id and the event's account-stream entry
    id (the SSE `id`, after the last `_`, so a client that reads both recognises one event). Entry ids alone repeat
    across accounts (each account has its own stream), and a receiver behind several accounts' webhooks that keeps
    the ids it handled would then drop another account's event as seen."""
    return f"msg_{webhook_id}_{event_id}"


@dataclass(frozen=True, slots=True)
class Attempt:
    """What one send gave: the HTTP status (None: no answer), the seconds it took, and the error if any."""

    status: int | None
    seconds: float
    error: str | None

    @property
    def ok(self) -> bool:
        return self.status is not None and 200 <= self.status < 300


class Deliverer:
    """Leases due deliveries, sends them, records them. `rng` spreads the retries (a test seeds it)."""

    def __init__(self, redis: Redis, keys: Keys, store: WebhookStore, events: AccountEvents, http: httpx.AsyncClient,
                 *, allow_http_loopback: bool = False, concurrency: int = 64, per_endpoint: int = 4, batch: int = 20,
                 lease_s: float = 60.0, retry_for_s: float = 86_400, disable_after_s: float = 86_400,
                 rng: random.Random | None = None, resolve: urls.Resolver = urls.system_resolve):
        self.redis = redis
        self.keys = keys
        self.store = store
        self.events = events
        self.http = http
        self.allow_http_loopback = allow_http_loopback
        self.batch = batch
        self.lease_ms = round(lease_s * 1000)
        self.retry_for_s = retry_for_s
        self.disable_after_ms = round(disable_after_s * 1000)
        self.rng = rng or random.Random()
        self.concurrency = concurrency
        #: deliveries in flight at once to one endpoint (webhook) at most
        self.per_endpoint = per_endpoint
        self.resolve = resolve
        self._gate = asyncio.Semaphore(concurrency)
        #: deliveries in flight per endpoint (an endpoint with none is not kept)
        self._at_endpoint: dict[str, int] = {}
        #: set when a delivery ends: room again (the loop passes again at once rather than after its pause)
        self.freed = asyncio.Event()
        self._passes = 0
        self._in_flight: set[asyncio.Task] = set()
        self._record = RECORD.register(redis)

    async def accounts(self) -> list[str]:
        """Every account holding webhooks (one pipelined read of the buckets)."""
        async with self.redis.pipeline(transaction=False) as pipe:
            for bucket in range(WEBHOOK_ACCOUNTS.count):
                pipe.smembers(self.keys.webhook_accounts(bucket))
            found = await pipe.execute()
        return sorted(_text(m) for members in found for m in members)

    async def pass_once(self, now_ms: int | None = None) -> int:
        """Lease and send every delivery due at `now_ms` (default: now), and wait for them; how many attempts."""
        started = await self.start_pass(now_ms)
        await self.drain()
        return started

    async def drain(self) -> None:
        """Wait for every attempt in flight."""
        while self._in_flight:
            await asyncio.gather(*list(self._in_flight))

    @property
    def in_flight(self) -> int:
        return len(self._in_flight)

    async def start_pass(self, now_ms: int | None = None) -> int:
        """Lease the deliveries due at `now_ms` that the bounds allow and start sending them (a slow receiver holds
        up no other delivery: each is a task of its own, leased while in flight); how many were started.

        Three round trips: which deliveries are due (read only, each account's oldest `batch`; a delivery's id
        names its webhook), the webhooks of the accounts with some (each delivery's endpoint), then the lease of
        exactly those chosen: at most `concurrency` in flight in all and `per_endpoint` at one endpoint. What is
        not chosen stays due, unleased, for a later pass."""
        now_ms = int(time.time() * 1000) if now_ms is None else now_ms
        self.freed.clear()
        room = self.concurrency - len(self._in_flight)
        players = await self.accounts()
        if not players or room <= 0:
            return 0
        self._passes += 1
        turn = self._passes % len(players)  # each account first in turn: none waits behind the others for room
        players = players[turn:] + players[:turn]
        async with self.redis.pipeline(transaction=False) as pipe:
            for pid in players:
                pipe.zrangebyscore(self.keys.webhook_due(pid), "-inf", now_ms, start=0, num=self.batch)
            due = await pipe.execute()
        waiting = [(pid, [_text(j) for j in jobs]) for pid, jobs in zip(players, due) if jobs]
        if not waiting:
            return 0
        lists = await asyncio.gather(*(self.store.list(pid) for pid, _jobs in waiting))
        hooks = {pid: {h.webhook_id: h for h in found} for (pid, _jobs), found in zip(waiting, lists)}
        chosen: dict[str, list[str]] = {}
        planned: dict[str, int] = {}
        for pid, jobs in waiting:
            for job_id in jobs:
                if room <= 0:
                    break
                endpoint = self._endpoint(hooks[pid].get(job_id.split("/", 1)[0]))
                if endpoint is not None:
                    if self._at_endpoint.get(endpoint, 0) + planned.get(endpoint, 0) >= self.per_endpoint:
                        continue  # its endpoint is full: due still, a later pass sends it
                    planned[endpoint] = planned.get(endpoint, 0) + 1
                chosen.setdefault(pid, []).append(job_id)
                room -= 1
        if not chosen:
            return 0
        lease_end = now_ms + self.lease_ms
        async with self.redis.pipeline(transaction=False) as pipe:
            for pid, jobs in chosen.items():
                TAKE.queue(pipe, {"due": self.keys.webhook_due(pid), "jobs": self.keys.webhook_jobs(pid)},
                           {"now": now_ms, "lease_end": lease_end, "jobs": jobs})
            taken = await pipe.execute()
        started = 0
        for pid, flat in zip(chosen, taken):
            for i in range(0, len(flat), 2):
                job_id, job = _text(flat[i]), json.loads(flat[i + 1])
                hook = hooks[pid].get(job["webhook"])
                endpoint = self._endpoint(hook)
                if endpoint is not None:
                    self._at_endpoint[endpoint] = self._at_endpoint.get(endpoint, 0) + 1
                task = asyncio.create_task(self._one(pid, job_id, job, hook, lease_end, now_ms, endpoint))
                self._in_flight.add(task)
                task.add_done_callback(self._done)
                started += 1
        return started

    @staticmethod
    def _endpoint(hook: Webhook | None) -> str | None:
        """The bound a delivery to `hook` counts in (its webhook's); None for a webhook gone or disabled (its
        deliveries are dropped unsent, holding nothing)."""
        return hook.webhook_id if hook is not None and hook.disabled is None else None

    def _done(self, task: asyncio.Task) -> None:
        self._in_flight.discard(task)
        self.freed.set()

    def _left_endpoint(self, endpoint: str | None) -> None:
        if endpoint is None:
            return
        left = self._at_endpoint.get(endpoint, 0) - 1
        if left > 0:
            self._at_endpoint[endpoint] = left
        else:
            self._at_endpoint.pop(endpoint, None)

    async def _one(self, pid: str, job_id: str, job: dict[str, Any], hook: Webhook | None, lease_end: int,
                   now_ms: int, endpoint: str | None = None) -> None:
        """One attempt of one delivery, recorded; a webhook that is gone or disabled drops it unsent. `endpoint`:
        the bound this delivery counts in, left when it is done."""
        try:
            await self._attempt(pid, job_id, job, hook, lease_end, now_ms)
        finally:
            self._left_endpoint(endpoint)

    async def _attempt(self, pid: str, job_id: str, job: dict[str, Any], hook: Webhook | None, lease_end: int,
                       now_ms: int) -> None:
        try:
            if hook is None or hook.disabled is not None:
                await self._record_attempt(pid, job_id, job, lease_end, "dropped", None, None, now_ms)
                metrics.DELIVERIES.labels("dropped").inc()
                return
            async with self._gate:
                attempt = await self.send(pid, hook, job)
            metrics.LATENCY.observe(attempt.seconds)
            job["attempt"] = int(job.get("attempt", 0)) + 1
            if attempt.ok:
                outcome, due = "delivered", None
                if job["attempt"] == 1 and not job.get("manual"):
                    metrics.DELAY.observe(max(0.0, time.time() - job["at_ms"] / 1000))
            else:
                due = next_due_ms(int(job.get("since_ms", job["at_ms"])), job["attempt"], now_ms, self.retry_for_s,
                                  self.rng)
                outcome = "retry" if due is not None else "gave_up"
            failing_since = await self._record_attempt(pid, job_id, job, lease_end, outcome, due, attempt, now_ms)
            if failing_since == -2:
                return  # the lease ran out and another deliverer took the delivery: its record counts
            metrics.DELIVERIES.labels(outcome).inc()
            failing_long = failing_since > 0 and now_ms - failing_since >= self.disable_after_ms
            reason = f"every delivery failed for {self.disable_after_ms // 1000} s"
            if failing_long and await self.store.disable(pid, hook, reason, failing_since, self.events):
                metrics.DISABLED.inc()
                log.warning("webhook %s of account %s disabled: failing since %d", hook.webhook_id, pid,
                            failing_since)
        except Exception:  # left leased: due again when the lease ends
            log.exception("delivery %s of account %s failed to be recorded", job_id, pid)

    async def send(self, pid: str, hook: Webhook, job: dict[str, Any]) -> Attempt:
        """POST the delivery, signed with the webhook's secrets, to the addresses its host resolves to once every
        one is checked (one resolution: the request connects to a checked address, never to the name again); never
        raises (a failure is an Attempt)."""
        body = body_of(job)
        started = time.perf_counter()
        try:
            scheme, host, port = urls.parse(hook.url, self.allow_http_loopback)
            addresses = await urls.check_addresses(scheme, host, port, self.allow_http_loopback, self.resolve)
            signed = self.store.signing_secrets(pid, hook, int(time.time() * 1000))
            if not signed:
                return Attempt(None, 0.0, "the webhook's secret cannot be opened (GATEWAY_WEBHOOK_KEY changed): "
                                          "rotate its secret")
            headers = {"content-type": "application/json", "user-agent": "skyboard-webhooks/1",
                       **signing.headers(message_id(job["webhook"], job["event"]), int(time.time()), body, signed)}
            reply = await self._post_pinned(hook.url, addresses, body, headers)
            return Attempt(reply.status_code, time.perf_counter() - started,
                           None if 200 <= reply.status_code < 300 else f"HTTP {reply.status_code}")
        except urls.UrlRefused as exc:
            return Attempt(None, time.perf_counter() - started, str(exc))
        except httpx.HTTPError as exc:
            return Attempt(None, time.perf_counter() - started, f"{type(exc).__name__}: {exc}"[:300])

    async def _post_pinned(self, url: str, addresses: list[str], body: bytes,
                           headers: dict[str, str]) -> httpx.Response:
        """POST to the first checked address that accepts a connection, in the resolver's order (as a client that
        resolved the name itself would try them)."""
        for i, address in enumerate(addresses):
            target, host_header, extensions = pinned(url, address)
            try:
                return await self.http.post(target, content=body, headers={**headers, **host_header},
                                            extensions=extensions)
            except httpx.ConnectError:
                if i == len(addresses) - 1:
                    raise
        raise AssertionError("unreachable: check_addresses returns at least one address")

    async def _record_attempt(self, pid: str, job_id: str, job: dict[str, Any], lease_end: int, outcome: str,
                              due: int | None, attempt: Attempt | None, now_ms: int) -> int:
        keys, args = self._record_args(pid, job_id, job, lease_end, outcome, due, attempt, now_ms)
        return int(await self._record(keys=keys, args=args))

    def _record_args(self, pid: str, job_id: str, job: dict[str, Any], lease_end: int, outcome: str,
                     due: int | None, attempt: Attempt | None, now_ms: int) -> tuple[dict[str, str], dict[str, Any]]:
        entry = {"delivery_id": message_id(job["webhook"], job["event"]), "type": job["type"], "event": job["event"],
                 "event_ms": job["at_ms"], "attempt": job.get("attempt", 0), "outcome": outcome,
                 "status_code": attempt.status if attempt else None,
                 "latency_ms": round(attempt.seconds * 1000, 1) if attempt else None, "at_ms": now_ms,
                 "next_attempt_ms": due, "error": attempt.error if attempt else None, "manual": bool(job.get("manual")),
                 "data": job["data"]}
        return ({"due": self.keys.webhook_due(pid), "jobs": self.keys.webhook_jobs(pid),
                 "failing": self.keys.webhook_failing(pid), "log": self.keys.webhook_log(pid, job["webhook"])},
                {"job": job_id, "lease_end": lease_end, "outcome": outcome, "next": due or 0,
                 "json": json.dumps(job, separators=(",", ":")), "entry": json.dumps(entry, separators=(",", ":")),
                 "webhook": job["webhook"], "now": now_ms})

    async def queue_depth(self) -> int:
        """Deliveries queued over every account holding webhooks."""
        players = await self.accounts()
        async with self.redis.pipeline(transaction=False) as pipe:
            for pid in players:
                pipe.zcard(self.keys.webhook_due(pid))
            return sum(await pipe.execute()) if players else 0


async def run(deliverer: Deliverer, stop: asyncio.Event, *, poll_s: float = 0.1, depth_every_s: float = 5.0) -> None:
    """Pass after pass until `stop`; after a pass that started nothing, pauses `poll_s` or until a delivery
    ends. A storage failure is
    logged and the loop goes on."""
    last_depth = 0.0
    while not stop.is_set():
        try:
            made = await deliverer.start_pass()
            if time.monotonic() - last_depth >= depth_every_s:
                last_depth = time.monotonic()
                metrics.QUEUED.set(await deliverer.queue_depth())
        except Exception:
            log.warning("webhook pass failed", exc_info=True)
            made = 0
        if not made:
            await _pause(deliverer, stop, poll_s)
    await deliverer.drain()


async def _pause(deliverer: Deliverer, stop: asyncio.Event, poll_s: float) -> None:
    """Until `poll_s` passed, `stop` is set, or a delivery ended (its endpoint has room again)."""
    waits = [asyncio.ensure_future(stop.wait()), asyncio.ensure_future(deliverer.freed.wait())]
    try:
        await asyncio.wait(waits, timeout=poll_s, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for w in waits:
            w.cancel()
