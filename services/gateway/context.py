"""What the routes share: settings, Redis, the stores and the game-state client (on app.state)."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from functools import cached_property
from typing import Annotated, Any

from fastapi import Depends, Request
from redis.asyncio import Redis
from redis.exceptions import RedisError
from sqlalchemy.exc import SQLAlchemyError

from services.accounts.events import AccountEvents
from services.accounts.keys import Keys
from services.accounts.ratings import Ratings
from services.accounts.repository import AccountRepository
from services.archive.repository import ArchiveRepository
from services.common.stream_slots import StreamSlots
from services.gamestate.client import AsyncAdminClient, AsyncGameClient, GameServiceError, GameState
from services.gateway.domain.account_fanout import AccountFanout
from services.gateway.domain.address_quota import AddressQuota
from services.gateway.domain.api_keys import Accounts
from services.gateway.domain.challenges import Challenges
from services.gateway.domain.players import Players
from services.gateway.domain.turn_events import announce_end
from services.gateway.http.errors import ApiError
from services.gateway.metrics import GatewayMetrics
from services.gateway.settings import GatewaySettings
from services.matchmaker.store import TicketStore

log = logging.getLogger(__name__)

#: Longest wait of one account stream read (under the Redis client's 5 s socket timeout); every open account
#: stream checks its API key again after each, so a retired key ends its stream within about half a second, and
#: an account's reader lets go of its connection that soon after its last stream closed.
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
    #: the turn follower of this gateway (following.Follower), None when GATEWAY_FOLLOW_GAMES is off
    follower: Any = None

    @cached_property
    def account_readers(self) -> AccountFanout:
        """One Redis reader per account followed by open account streams of this process."""
        return AccountFanout(self.events, ACCOUNT_READ_BLOCK_MS)

    @cached_property
    def streams(self) -> StreamSlots:
        """The open SSE streams of this process, bounded per address and per credential (GATEWAY_STREAM_LIMIT_*)."""
        return StreamSlots(self.settings.stream_limit_ip, self.settings.stream_limit_token, "event streams")

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

    @cached_property
    def account_quota(self) -> AddressQuota:
        """Accounts created per client address (POST /v1/players)."""
        return AddressQuota(self.redis, self.keys, "accounts", self.settings.accounts_per_address,
                            self.settings.accounts_window_s)

    @cached_property
    def challenges(self) -> Challenges:
        s = self.settings
        return Challenges(self.redis, self.keys, s.challenge_ttl_s, s.account_events_keep_s,
                          s.challenges_per_sender, s.challenges_per_recipient)

    @property
    def admin(self) -> AsyncAdminClient:
        """GameAdmin over the game-state client's channel (creation on a player's behalf)."""
        if not self.settings.service_secret:
            raise RuntimeError("this gateway has no service secret (GATEWAY_SERVICE_SECRET / SERVICE_SECRET)")
        return self.gamestate.admin(self.settings.service_secret)

    async def settle_if_rated(self, game: GameState) -> None:
        """Settle a finished rated game's ratings, resigned and abandoned players last, or drop an aborted one's
        (idempotent; safe to call on every sighting of an ended game)."""
        if await self.ratings.is_rated(game.game_id) and await self.ratings.conclude(game):
            self.metrics.matches.inc()

    async def settle_soon(self, game_id: str, game: GameState | None = None, announce: bool = False) -> None:
        """Settle an ended game's ratings now if storage answers, and with `announce` (the gateway just ended it)
        announce its end to the accounts seated in it (`turn_events.announce_end`); else leave it to the
        matchmaker's settle check (`GATEWAY_MM_SETTLE_CHECK_S`) and the turn follower. Called after something that
        already succeeded (an accepted move, a read): a storage hiccup here must not turn that success into an
        error."""
        try:
            g = game if game is not None else await self.gamestate.get_game(game_id)
            await self.settle_if_rated(g)
            if announce:  # read your writes (#37); not on every read of an ended game: that costs Redis calls
                await announce_end(self.redis, self.keys, self.settings, g)
        except (GameServiceError, RedisError, SQLAlchemyError, OSError) as exc:
            log.warning("settling %s left to the settle check: %s", game_id, exc.__class__.__name__)

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
