"""Account kinds (human or bot) and API-key rotation with a grace period.

Why a key prefix: the rate limiter runs before any route and must know a bot account's key without a SQL
lookup of its kind per request, so a bot account's keys start with `sbk_bot_` (a human's with `sbk_`). A prefix proves
nothing by itself: an unknown key is refused (401) whatever its prefix, so a forged prefix only buys a
bigger budget for requests that all fail, still under the per-address ceiling.

Why a grace period: a bot fleet cannot switch keys atomically; the replaced key keeps working for
`GATEWAY_API_KEY_GRACE_S` (its SQL row gets that `expires_ms`), then stops.

Why only the current key rotates: a leaked key that could rotate during its grace would mint itself a fresh
current key and outlive the rotation meant to stop it. For the same reason only the current key may revoke
every other key at once (a leak found: rotate, then revoke the rest), and an account holds at most
`GATEWAY_API_KEYS_MAX` working keys, so rotations cannot pile up keys in grace.
"""

from __future__ import annotations

import secrets
from typing import Literal

from redis.asyncio import Redis

# the key format and its cached lookup are the accounts' (services/accounts/access.py), shared with the public gRPC port
from services.accounts.access import BOT_KEY_PREFIX, CACHE_MS, HUMAN_KEY_PREFIX, REVOKED, cache_ttl_ms, now_ms
from services.accounts.keys import Keys, token_hash
from services.accounts.repository import AccountRepository, KeyRetired, NotConfirmed, TooManyKeys
from services.gateway.domain.names import clean_name
from services.gateway.http.errors import ApiError

Kind = Literal["human", "bot"]
KINDS: tuple[str, ...] = ("human", "bot")


def mint_key(kind: str) -> str:
    """A new API key of `kind` (shown once, stored hashed)."""
    return (BOT_KEY_PREFIX if kind == "bot" else HUMAN_KEY_PREFIX) + secrets.token_urlsafe(32)


class Accounts:
    """Kind lookups and key rotation over the players' SQL records (`players.Players` creates them)."""

    def __init__(self, redis: Redis, keys: Keys, repo: AccountRepository, grace_s: int, max_keys: int = 0):
        self.redis = redis
        self.keys = keys
        self.repo = repo
        self.grace_ms = grace_s * 1000
        self.max_keys = max_keys

    async def kind(self, player_id: str) -> str:
        record = await self.repo.player(player_id)
        return record.kind if record is not None and record.kind in KINDS else "human"

    async def kinds(self, player_ids: list[str]) -> dict[str, str]:
        records = await self.repo.players(player_ids)
        return {pid: records[pid].kind if pid in records and records[pid].kind in KINDS else "human"
                for pid in player_ids}

    async def created_ms(self, player_id: str) -> int | None:
        record = await self.repo.player(player_id)
        return record.created_ms if record is not None else None

    async def rotate(self, player_id: str, presented_key: str) -> str:
        """A new API key for `player_id`, which `presented_key` must be the current key of (403 `key_retired`);
        the replaced key works on for the grace period. 409 `too_many_keys` at GATEWAY_API_KEYS_MAX working keys.

        SQL first (one transaction, the player's row locked), then the cached lookup of the replaced key is
        rewritten (not deleted, so a lookup that read SQL before the rotation cannot re-fill it: fills are
        `SET NX`): the player id with a TTL bounded by the key's new expiry, or "-" for a key that stopped."""
        new_key = mint_key(await self.kind(player_id))
        now = now_ms()
        try:
            replaced = await self.repo.rotate(player_id, token_hash(presented_key), token_hash(new_key),
                                              self.grace_ms, now, self.max_keys)
        except KeyRetired as exc:
            raise _retired(exc) from None
        except TooManyKeys as exc:
            raise ApiError(409, f"this account has {exc.working} working API keys, the most it may have; revoke "
                           "the others (POST /v1/players/me/keys/revoke-others) or wait for a retired key's grace "
                           "to end", "too_many_keys") from None
        await self._rewrite_cache(player_id, replaced, now)
        return new_key

    async def revoke_others(self, player_id: str, presented_key: str) -> int:
        """Stop every key of the account but `presented_key`, its current one (403 `key_retired` otherwise), at
        once; answers how many working keys stopped."""
        now = now_ms()
        try:
            revoked = await self.repo.revoke_others(player_id, token_hash(presented_key), now)
        except KeyRetired as exc:
            raise _retired(exc) from None
        await self._rewrite_cache(player_id, dict.fromkeys(revoked), now)
        return len(revoked)

    async def delete(self, player_id: str, presented_key: str, confirm_name: str) -> None:
        """Delete the account (services/accounts/repository.py delete_player): its every key stops at once, as for
        revoke-others (the cached lookups rewritten as revoked, so every stream the keys opened ends), and its name
        is replaced. 403 `key_retired` for a key in its grace, 422 when `confirm_name` is not the account's name."""
        now = now_ms()
        try:
            confirmed = clean_name(confirm_name)
        except ValueError:
            confirmed = ""
        try:
            revoked = await self.repo.delete_player(player_id, token_hash(presented_key), confirmed, now)
        except KeyRetired as exc:
            raise _retired(exc) from None
        except NotConfirmed:
            raise ApiError(422, "confirm_name must be this account's name (GET /v1/players/me): deleting an account "
                           "cannot be undone") from None
        await self._rewrite_cache(player_id, dict.fromkeys(revoked), now)

    async def _rewrite_cache(self, player_id: str, changed: dict[str, int | None], now: int) -> None:
        async with self.redis.pipeline(transaction=False) as pipe:
            for key_hash, expires_ms in changed.items():
                ttl = cache_ttl_ms(expires_ms, now) if expires_ms is not None else 0
                if ttl > 0:
                    pipe.set(self.keys.api_key_cache(key_hash), player_id, px=ttl)
                else:
                    pipe.set(self.keys.api_key_cache(key_hash), REVOKED, px=CACHE_MS)
            await pipe.execute()


def _retired(exc: KeyRetired) -> ApiError:
    return ApiError(403, "only the account's current API key can change its keys; this one was replaced and only "
                    "works until its grace period ends", "key_retired")
