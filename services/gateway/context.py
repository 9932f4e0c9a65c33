"""What the routes share: settings, Redis, the stores and the game-state client (on app.state)."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Annotated

from fastapi import Depends, Request
from redis.asyncio import Redis

from services.accounts.events import AccountEvents
from services.accounts.keys import Keys
from services.accounts.ratings import Ratings
from services.accounts.repository import AccountRepository
from services.archive.repository import ArchiveRepository
from services.common.healthcheck import SharedCheck
from services.common.stream_slots import StreamSlots
from services.gamestate.client import AsyncAdminClient, AsyncGameClient
from services.gateway.domain import readiness
from services.gateway.domain.account_fanout import AccountFanout
from services.gateway.domain.address_quota import DAY_S, AddressQuota, Tier
from services.gateway.domain.api_keys import Accounts
from services.gateway.domain.challenges import Challenges
from services.gateway.domain.players import Players
from services.gateway.http.errors import ApiError
from services.gateway.metrics import GatewayMetrics
from services.gateway.settings import GatewaySettings
from services.matchmaker.store import TicketStore
from services.tournaments.store import TournamentStore
from services.webhooks.settings import CredentialError, webhook_key
from services.webhooks.store import WebhookStore

#: Longest wait of one account stream read (under the Redis client's 5 s socket timeout): an account's reader lets
#: go of its connection that soon after its last stream closed. (Each open stream checks its API key before each
#: batch and at least every services/accounts/revocation.CHECK_S, so a retired key ends it within about that.)
ACCOUNT_READ_BLOCK_MS = 500

@dataclass
class Context:
    settings: GatewaySettings
    redis: Redis
    keys: Keys
    gamestate: AsyncGameClient
    players: Players
    ratings: Ratings
    tickets: TicketStore
    metrics: GatewayMetrics
    #: the SQL system of record (GATEWAY_ARCHIVE_URL / ARCHIVE_URL): players, keys and ratings (`accounts_db`,
    #: behind `players`, `accounts`, `ratings`) and the archive of finished games (player histories)
    accounts_db: AccountRepository
    archive: ArchiveRepository
    _webhooks: WebhookStore | None = field(default=None, init=False, repr=False)

    @cached_property
    def account_readers(self) -> AccountFanout:
        """One Redis reader per account followed by open account streams of this process."""
        return AccountFanout(self.events, ACCOUNT_READ_BLOCK_MS)

    @cached_property
    def streams(self) -> StreamSlots:
        """The open SSE streams of this process, bounded per address and per credential (GATEWAY_STREAM_LIMIT_*)."""
        return StreamSlots(self.settings.stream_limit_ip, self.settings.stream_limit_token, "event streams")

    @cached_property
    def readiness(self) -> SharedCheck[dict[str, bool]]:
        """/readyz's check of the backends, shared by its callers (GATEWAY_READY_CACHE_S; domain/readiness.py)."""
        return SharedCheck(lambda: readiness.probe(self), self.settings.ready_cache_s)

    @cached_property
    def accounts(self) -> Accounts:
        """Account kinds and API-key rotation."""
        return Accounts(self.redis, self.keys, self.accounts_db, self.settings.api_key_grace_s,
                        self.settings.api_keys_max)

    @cached_property
    def events(self) -> AccountEvents:
        """The account streams (GET /v1/players/me/events)."""
        return AccountEvents(self.redis, self.keys, self.settings.service_secret or "",
                             self.settings.account_events_maxlen, self.settings.account_events_keep_s)

    @property
    def webhooks(self) -> WebhookStore:
        """The accounts' webhooks; 503 `webhooks_unavailable` on a gateway without GATEWAY_WEBHOOK_KEY."""
        if self._webhooks is None:
            try:
                key = webhook_key(self.settings)
            except CredentialError:
                raise ApiError(503, "webhooks are not configured on this server (GATEWAY_WEBHOOK_KEY)",
                               "webhooks_unavailable") from None
            self._webhooks = WebhookStore(self.redis, self.keys, key, max_per_account=self.settings.webhooks_max,
                                          secret_grace_s=self.settings.webhook_secret_grace_s)
        return self._webhooks

    @cached_property
    def account_quota(self) -> AddressQuota:
        """Accounts created per client address (POST /v1/players)."""
        s = self.settings
        return AddressQuota(self.redis, self.keys, "accounts", [Tier(s.accounts_per_address, s.accounts_window_s),
                                                                 Tier(s.accounts_per_address_daily, DAY_S)])

    @cached_property
    def challenges(self) -> Challenges:
        s = self.settings
        return Challenges(self.redis, self.keys, s.challenge_ttl_s, s.account_events_keep_s,
                          s.challenges_per_sender, s.challenges_per_recipient)

    @cached_property
    def tournaments(self) -> TournamentStore:
        """Tournaments in SQL (services/tournaments/store.py), on the accounts' engine."""
        return TournamentStore(self.accounts_db.engine)

    @property
    def admin(self) -> AsyncAdminClient:
        """GameAdmin over the game-state client's channel (creation on a player's behalf)."""
        if not self.settings.service_secret:
            raise RuntimeError("this gateway has no service secret (GATEWAY_SERVICE_SECRET / SERVICE_SECRET)")
        return self.gamestate.admin(self.settings.service_secret)

    async def player(self, api_key: str) -> str:
        """The player id owning `api_key`; 401 otherwise (a seat token is not an API key)."""
        player_id = await self.players.authenticate(api_key)
        if player_id is None:
            raise ApiError(401, "unknown api key")
        return player_id

    async def catalog_entry(self, game: str) -> dict:
        """The catalog description of `game`; 422 if the service does not know it."""
        games, _levels = await self.gamestate.catalog()
        for entry in games:
            if entry["name"] == game:
                return entry
        known = ", ".join(g["name"] for g in games)
        raise ApiError(422, f"unknown game {game!r}; known games: {known}", "unknown_game")


async def ctx(request: Request) -> Context:
    # async on purpose: FastAPI runs a plain `def` dependency in its thread pool, a thread hop per request
    return request.app.state.ctx


Ctx = Annotated[Context, Depends(ctx)]
