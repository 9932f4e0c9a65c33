"""An account's webhooks in Redis, every key in the account's slot (services/accounts/keys.py): the endpoints, the
routes the account-stream append reads to queue deliveries (services/accounts/lua/webhook_enqueue.lua), the
queued deliveries, each endpoint's log of its last 100 attempts, and the accounts the deliverer walks.

Secrets are stored sealed (AES-256-GCM under a key derived from GATEWAY_WEBHOOK_KEY, services/accounts/sealing.py,
bound to the account and webhook), never in clear: Redis, its dumps and replicas never hold one."""

from __future__ import annotations

import json
import secrets
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from redis.asyncio import Redis

from services.accounts.events import AccountEvents
from services.accounts.keys import WEBHOOK_ACCOUNTS, Keys
from services.accounts.sealing import seal, unseal
from services.common.redis_scripts import LuaScript
from services.webhooks.signing import new_secret

PUT = LuaScript.beside(__file__, "put")
REMOVE = LuaScript.beside(__file__, "remove")
SWITCH = LuaScript.beside(__file__, "switch")
TAKE = LuaScript.beside(__file__, "take")
RECORD = LuaScript.beside(__file__, "record")
REDELIVER = LuaScript.beside(__file__, "redeliver")

#: The key derivation's label of webhook secrets (services/accounts/sealing.py: one derived key per use).
PURPOSE = b"skyboard webhook secret v1"
#: Attempts an endpoint's log keeps (record.lua trims to it).
LOG_KEEP = 100


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


def _ad(player_id: str, webhook_id: str) -> str:
    return f"webhook:{player_id}:{webhook_id}"


@dataclass
class Webhook:
    """One endpoint as stored: its secrets sealed."""

    webhook_id: str
    url: str
    events: list[str]
    description: str
    created_ms: int
    secret: str
    previous: str | None = None
    previous_until_ms: int = 0
    disabled: dict[str, Any] | None = field(default=None, compare=False)

    def to_json(self) -> str:
        data = asdict(self)
        data.pop("disabled")
        return json.dumps(data, separators=(",", ":"))

    @classmethod
    def parse(cls, raw: bytes | str, off: bytes | str | None) -> Webhook:
        return cls(**json.loads(raw), disabled=json.loads(off) if off else None)

    def public(self) -> dict[str, Any]:
        """What the account sees (never a secret)."""
        return {"webhook_id": self.webhook_id, "url": self.url, "events": self.events,
                "description": self.description, "created_ms": self.created_ms, "enabled": self.disabled is None,
                "disabled": self.disabled}


class TooMany(Exception):
    """The account holds as many webhooks as it may."""


class WebhookStore:
    """The accounts' webhooks; `server_key` seals and opens their secrets."""

    def __init__(self, redis: Redis, keys: Keys, server_key: str, *, max_per_account: int = 5,
                 secret_grace_s: int = 3600):
        self.redis = redis
        self.keys = keys
        self.server_key = server_key
        self.max_per_account = max_per_account
        self.secret_grace_s = secret_grace_s
        self._put = PUT.register(redis)
        self._remove = REMOVE.register(redis)
        self._switch = SWITCH.register(redis)
        self._redeliver = REDELIVER.register(redis)

    # ------------------------------------------------------------------ secrets

    def seal(self, player_id: str, webhook_id: str, secret: str) -> str:
        return seal(self.server_key, _ad(player_id, webhook_id), secret, PURPOSE)

    def signing_secrets(self, player_id: str, hook: Webhook, now_ms: int) -> list[str]:
        """The secrets that sign a delivery now: the current one, and the previous one during its grace. One that
        does not open (the server key changed) is left out."""
        sealed = [hook.secret] + ([hook.previous] if hook.previous and now_ms < hook.previous_until_ms else [])
        opened = (unseal(self.server_key, _ad(player_id, hook.webhook_id), s, PURPOSE) for s in sealed)
        return [s for s in opened if s]

    # ------------------------------------------------------------------ management

    def _hook_keys(self, player_id: str) -> dict[str, str]:
        return {"hooks": self.keys.webhooks(player_id), "off": self.keys.webhook_off(player_id),
                "routes": self.keys.webhook_routes(player_id)}

    def _registry(self, player_id: str) -> str:
        return self.keys.webhook_accounts(WEBHOOK_ACCOUNTS.bucket_of(player_id))

    async def create(self, player_id: str, url: str, events: Sequence[str], description: str) -> tuple[Webhook, str]:
        """A new webhook and its secret (the only time it is shown); TooMany beyond the cap."""
        webhook_id = secrets.token_hex(12)
        secret = new_secret()
        hook = Webhook(webhook_id, url, sorted(set(events)), description, int(time.time() * 1000),
                       self.seal(player_id, webhook_id, secret))
        if await self._put(keys=self._hook_keys(player_id),
                           args={"id": webhook_id, "json": hook.to_json(), "max": self.max_per_account}) < 0:
            raise TooMany
        await self.redis.sadd(self._registry(player_id), player_id)  # after the webhook: the deliverer finds it
        return hook, secret

    async def list(self, player_id: str) -> list[Webhook]:
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.hgetall(self.keys.webhooks(player_id))
            pipe.hgetall(self.keys.webhook_off(player_id))
            hooks, off = await pipe.execute()
        off = {_text(k): v for k, v in off.items()}
        found = [Webhook.parse(v, off.get(_text(k))) for k, v in hooks.items()]
        return sorted(found, key=lambda h: (h.created_ms, h.webhook_id))

    async def get(self, player_id: str, webhook_id: str) -> Webhook | None:
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.hget(self.keys.webhooks(player_id), webhook_id)
            pipe.hget(self.keys.webhook_off(player_id), webhook_id)
            raw, off = await pipe.execute()
        return Webhook.parse(raw, off) if raw else None

    async def delete(self, player_id: str, webhook_id: str) -> bool:
        """False if there was no such webhook. The account leaves the deliverer's walk with its last webhook."""
        left = await self._remove(keys={**self._hook_keys(player_id), "due": self.keys.webhook_due(player_id),
                                        "jobs": self.keys.webhook_jobs(player_id),
                                        "failing": self.keys.webhook_failing(player_id),
                                        "log": self.keys.webhook_log(player_id, webhook_id)},
                                  args={"id": webhook_id})
        if left == 0:
            # a webhook created meanwhile must stay walked: leave, then look again (create joins after writing)
            await self.redis.srem(self._registry(player_id), player_id)
            if await self.redis.hlen(self.keys.webhooks(player_id)):
                await self.redis.sadd(self._registry(player_id), player_id)
        return left >= 0

    async def rotate(self, player_id: str, webhook_id: str) -> str | None:
        """A new secret (shown once); the previous one keeps signing for `secret_grace_s`. None: no such webhook."""
        hook = await self.get(player_id, webhook_id)
        if hook is None:
            return None
        secret = new_secret()
        hook.previous, hook.secret = hook.secret, self.seal(player_id, webhook_id, secret)
        hook.previous_until_ms = int((time.time() + self.secret_grace_s) * 1000)
        await self._put(keys=self._hook_keys(player_id),
                        args={"id": webhook_id, "json": hook.to_json(), "max": self.max_per_account})
        return secret

    async def set_enabled(self, player_id: str, webhook_id: str, reason: dict[str, Any] | None) -> int:
        """Enable (`reason` None) or disable: -1 no such webhook, 0 it already was, 1 changed."""
        return int(await self._switch(
            keys={**self._hook_keys(player_id), "due": self.keys.webhook_due(player_id),
                  "jobs": self.keys.webhook_jobs(player_id), "failing": self.keys.webhook_failing(player_id)},
            args={"id": webhook_id, "reason": "" if reason is None else json.dumps(reason, separators=(",", ":"))}))

    async def disable(self, player_id: str, hook: Webhook, reason: str, failing_since_ms: int,
                      events: AccountEvents) -> bool:
        """Disable a failing endpoint and, if this call disabled it, say so on the account's stream."""
        now_ms = int(time.time() * 1000)
        changed = await self.set_enabled(player_id, hook.webhook_id, {"reason": reason, "at_ms": now_ms,
                                                                      "failing_since_ms": failing_since_ms})
        if changed == 1:
            await events.publish(player_id, "webhook_disabled", {
                "webhook_id": hook.webhook_id, "url": hook.url, "reason": reason,
                "failing_since_ms": failing_since_ms})
        return changed == 1

    # ------------------------------------------------------------------ log

    async def log(self, player_id: str, webhook_id: str) -> list[dict[str, Any]]:
        """The endpoint's last attempts, newest first."""
        raw = await self.redis.lrange(self.keys.webhook_log(player_id, webhook_id), 0, LOG_KEEP - 1)
        return [json.loads(r) for r in raw]

    async def redeliver(self, player_id: str, webhook_id: str, delivery_id: str) -> bool | None:
        """Queue a logged event again: None if the log holds no such delivery, False if the webhook is disabled."""
        entry = next((e for e in await self.log(player_id, webhook_id) if e["delivery_id"] == delivery_id), None)
        if entry is None:
            return None
        now_ms = int(time.time() * 1000)
        job = {"webhook": webhook_id, "type": entry["type"], "event": entry["event"], "at_ms": entry["event_ms"],
               "since_ms": now_ms, "attempt": 0, "manual": True, "data": entry["data"]}
        return bool(await self._redeliver(
            keys={"off": self.keys.webhook_off(player_id), "due": self.keys.webhook_due(player_id),
                  "jobs": self.keys.webhook_jobs(player_id)},
            args={"id": webhook_id, "job": f"{webhook_id}/{entry['event']}",
                  "json": json.dumps(job, separators=(",", ":")), "now": now_ms}))

    async def forget_account(self, player_id: str) -> None:
        """Every webhook of a deleted account, with its queue and logs."""
        for hook in await self.list(player_id):
            await self.delete(player_id, hook.webhook_id)
