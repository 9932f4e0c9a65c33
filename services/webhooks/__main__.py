"""`python -m services.webhooks`: the webhook deliverer (settings: services/webhooks/settings.py, GATEWAY_*).

Several can run at once: each delivery is leased to one of them at a time, and a dead one's leases run out and are
taken by the others. It needs GATEWAY_WEBHOOK_KEY (the secrets are sealed with it) and refuses to start without."""

from __future__ import annotations

import asyncio
import logging
import random

from prometheus_client import start_http_server

from services.accounts.events import AccountEvents
from services.accounts.keys import Keys
from services.common.entry import configure_logging, run_until_signalled
from services.common.redis_clients import async_redis
from services.common.slot_transactions import cluster_ready
from services.webhooks import pinning
from services.webhooks.deliverer import Deliverer, run
from services.webhooks.settings import CredentialError, WebhookSettings, webhook_key
from services.webhooks.store import WebhookStore

log = logging.getLogger("services.webhooks")


async def serve(settings: WebhookSettings, stop: asyncio.Event) -> None:
    redis = async_redis(settings.redis_url, cluster=settings.redis_cluster)
    keys = Keys(settings.key_prefix)
    store = WebhookStore(redis, keys, webhook_key(settings), max_per_account=settings.webhooks_max,
                         secret_grace_s=settings.webhook_secret_grace_s)
    events = AccountEvents(redis, keys, "", settings.account_events_maxlen, settings.account_events_keep_s)
    async with pinning.client(settings.webhooks_timeout_s, settings.webhooks_concurrency) as http:
        deliverer = Deliverer(
            redis, keys, store, events, http, allow_http_loopback=settings.webhooks_allow_http_loopback,
            concurrency=settings.webhooks_concurrency, per_endpoint=settings.webhooks_per_endpoint,
            batch=settings.webhooks_batch,
            lease_s=settings.webhooks_lease_s, retry_for_s=settings.webhooks_retry_for_s,
            disable_after_s=settings.webhooks_disable_after_s, rng=random.SystemRandom())
        try:
            await cluster_ready(redis)
            await run(deliverer, stop, poll_s=settings.webhooks_poll_s)
        finally:
            await redis.aclose()


def main() -> None:
    configure_logging()
    logging.getLogger("httpx").setLevel(logging.WARNING)  # not a line per delivery (the log and metrics say it)
    settings = WebhookSettings()
    try:
        webhook_key(settings)
    except CredentialError as exc:
        raise SystemExit(f"skyboard webhooks: {exc}") from None
    if settings.webhooks_metrics_port:
        start_http_server(settings.webhooks_metrics_port, addr="0.0.0.0")

    log.info("webhook deliverer for accounts under %s%s", settings.key_prefix,
             " (Redis Cluster)" if settings.redis_cluster else "")
    run_until_signalled(lambda stop: serve(settings, stop))


if __name__ == "__main__":
    main()
