"""Configuration of the services, from environment variables (pydantic-settings).

Every setting has a documented default that works for a local run against a
Redis on 127.0.0.1:6379. Variable names are the upper-case field names, e.g.
`REDIS_URL`, `GRPC_ADDR`, `METRICS_PORT`, `KEY_PREFIX`.
"""

from __future__ import annotations

import os
from functools import lru_cache
from typing import Any, ClassVar

from pydantic import Field, model_validator
from pydantic.fields import FieldInfo
from pydantic_settings import BaseSettings, PydanticBaseSettingsSource, SettingsConfigDict

from services.common.credentials import ServiceCredentials, check_secret


class _Unprefixed(PydanticBaseSettingsSource):
    """A few fields of a prefixed role read unprefixed too (`SERVICE_SECRET` when `GATEWAY_SERVICE_SECRET` is unset),
    so one variable can serve every role: below the prefixed variables, above the defaults."""

    def __init__(self, settings_cls: type[BaseSettings], names: tuple[str, ...]) -> None:
        super().__init__(settings_cls)
        self.names = names

    def get_field_value(self, field: FieldInfo, field_name: str) -> tuple[Any, str, bool]:
        return os.environ.get(field_name.upper()), field_name, False

    def __call__(self) -> dict[str, Any]:
        env = {key.lower(): value for key, value in os.environ.items()}  # case-insensitive, as pydantic-settings
        return {name: env[name] for name in self.names if name in env}


class StoreFields(BaseSettings):
    """What every role that opens the hot store and calls GameAdmin reads alike, declared once: the game-state
    service (`Settings`), the matchmaker and the gateway (`GATEWAY_*`, services/matchmaker/settings.py). A role with
    an env prefix also reads the fields of UNPREFIXED without it, as the other services name them."""

    UNPREFIXED: ClassVar[tuple[str, ...]] = ("redis_cluster", "service_secret", "archive_url")

    redis_url: str = Field(
        "redis://127.0.0.1:6379/0", description="Redis, the hot store: every game in play (the truth), and the "
        "gateway's tickets, rate limits, account streams and API-key cache (players, keys and ratings are in SQL).",
    )
    redis_cluster: bool = Field(
        False, description="REDIS_URL names a node of a Redis Cluster (docs/platform/redis-cluster.md, "
        "redis-cluster-running.md): the role opens cluster clients. Off: a standalone Redis (`make run`'s).",
    )
    key_prefix: str = Field("sb:", description="Prefix of every Redis key the role writes.")
    service_secret: str | None = Field(
        None,
        repr=False,
        description="The service credential (no default) of the internal GameAdmin service: the game-state service "
        "accepts it; the bot workers, the gateway and the matchmaker present it, and refuse to start without it. "
        "`make run` generates one per stack (services/common/credentials.py).",
    )
    archive_url: str | None = Field(
        None,
        description="The SQL system of record (services/archive/): `postgresql+asyncpg://user@host/db` or "
        "`sqlite+aiosqlite:///path/archive.db` (`make run`'s default, under .skyboard/): finished games, and the "
        "players, API-key hashes and ratings. Unset: the game-state service keeps finished games in Redis; the "
        "gateway and the matchmaker refuse to start. The roles apply the migrations at start.",
    )

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        """The prefixed role's unprefixed fallbacks sit just below its own variables."""
        if not cls.model_config.get("env_prefix"):
            return init_settings, env_settings, dotenv_settings, file_secret_settings
        fallback = _Unprefixed(settings_cls, cls.UNPREFIXED)
        return init_settings, env_settings, fallback, dotenv_settings, file_secret_settings

    def secret(self) -> str:
        """The service secret a client of GameAdmin presents; CredentialError if it is missing or unusable."""
        return check_secret(self.service_secret)


class RateLimitFields(BaseSettings):
    """The fixed-window limits of a public listener, one shape for both: the game-state service's public gRPC port
    (`RATE_LIMIT_*`) and the REST gateway (`GATEWAY_RATE_LIMIT_*`, services/gateway/settings.py). "Calls" are gRPC
    calls or HTTP requests; a credential is a seat token or an API key."""

    rate_limit_ip: int = Field(
        600, ge=0, description="Calls without a credential per window per client address; 0 disables."
    )
    rate_limit_token: int = Field(300, ge=0, description="Calls per window per credential; 0 disables.")
    rate_limit_ip_ceiling: int = Field(
        6000, ge=0, description="All calls per window per client address, credentials or not (a flood ceiling far "
        "above the per-credential budget: minting credentials cannot multiply one machine's budget); 0 disables.",
    )
    rate_limit_window_s: int = Field(60, gt=0, description="Length of the fixed rate-limit window.")
    rate_limit_bot_token: int = Field(
        3000, ge=0, description="Calls per window of a bot account (its API keys, whose prefix is `sbk_bot_`, and the "
        "seat tokens it holds): enough for a bot to play at full speed; 0 disables. Other seat tokens "
        "and human accounts keep RATE_LIMIT_TOKEN.",
    )


class Settings(StoreFields, RateLimitFields):
    """All knobs of the game-state service and its Celery dispatch."""

    model_config = SettingsConfigDict(extra="ignore", frozen=True)

    redis_wait_replicas: int = Field(
        0, ge=0, description="Replicas that must confirm a commit or creation (Redis WAIT, on the connection that "
        "wrote it) before the service acknowledges it, so an acknowledged action survives a failover; short of "
        "them within REDIS_WAIT_TIMEOUT_MS the call answers UNAVAILABLE (retry with the same idempotency key). "
        "0 = no wait. Its cost per action: bench/RESULTS.md.",
    )
    redis_wait_timeout_ms: int = Field(
        1000, gt=0, description="How long a commit waits for REDIS_WAIT_REPLICAS replicas."
    )
    grpc_addr: str = Field("127.0.0.1:50051", description="host:port the gRPC server listens on (port 0 = any).")
    redis_client_name: str = Field(
        "skyboard-gamestate", description="CLIENT SETNAME of the service's Redis connections, so CLIENT LIST shows "
        "which connections are the service's (no spaces).",
    )
    metrics_port: int = Field(9101, description="Prometheus HTTP exporter port; 0 disables it.")
    metrics_addr: str = Field("127.0.0.1", description="Address the metrics exporter binds (0.0.0.0 in containers).")
    celery_broker_url: str | None = Field(
        None, description="Celery broker, a standalone Redis (bot tasks, and the queue age the workers read); "
        "default: REDIS_URL. Required with REDIS_CLUSTER=true: Celery cannot use a Redis Cluster as its broker, "
        "and bot traffic on its own Redis never competes with game state (docs/platform/redis-cluster-running.md).",
    )
    bot_queue: str = Field("bots", description="Celery queue the skyboard.bot_move tasks go to.")
    service_secret_previous: str | None = Field(
        None, repr=False, description="During a rotation: the old secret, still accepted until the time below."
    )
    service_secret_previous_until: float | None = Field(
        None, description="Unix seconds at which SERVICE_SECRET_PREVIOUS stops being accepted."
    )
    allow_anonymous_create: bool = Field(
        False,
        description="Development only: let the public CreateGame create games with no owner (no quotas). Off by "
        "default: players create games through the REST gateway with their API key.",
    )
    quota_active_games: int = Field(20, ge=0, description="Active games one player may own at once (0 = none).")
    quota_bot_seats: int = Field(
        40, ge=0, description="Bot seats one player's active games may hold together (0 = no bot seats)."
    )
    quota_creations_per_hour: int = Field(
        120, ge=0, description="Games one player may create per clock hour (UTC)."
    )
    dispatch_bots: bool = Field(True, description="Send skyboard.bot_move tasks when a bot seat must act.")
    bot_redispatch_s: float = Field(
        15.0, ge=0, description="Re-queue a bot move when a game has waited on a bot seat for the level's think "
        "budget plus this many seconds (0 = never).",
    )
    bot_degrade_after_s: float = Field(
        3.0, ge=0, description="When the oldest bot decision a human waits on has been queued longer than this, "
        "workers shrink every level's think budget by this / its age, never below mcts-easy's (0 = never; "
        "services/common/bot_policy.py).",
    )
    bot_follow_ups_first: bool = Field(
        True, description="Queue a game's next bot decision while a human waits on it (after a bot's or the "
        "platform's commit) ahead of other games' first decisions after a human's move; false = one FIFO tier "
        "for every human-waiting decision (services/common/bot_policy.py).",
    )
    seat_token_ttl_after_end_s: float = Field(
        3600.0, ge=0, description="Seat tokens of a finished game are refused (UNAUTHENTICATED) this long after "
        "its end, and their token-index entries expire then; spectator reads go on.",
    )
    idempotency_ttl_s: int = Field(86_400, description="How long an idempotency key replays its first outcome.")
    snapshot_every: int = Field(
        16, ge=1, description="Snapshot the full state every N accepted actions and at the end; loads replay the tail."
    )
    cache_size: int = Field(512, ge=0, description="Hot states cached in memory per instance.")
    outbox_maxlen: int = Field(
        100_000, ge=1000, description="Each bucket's outbox stream (every committed version, for the outcomes "
        "consumer: services/gamestate/outbox.py) is trimmed to about this many entries; an entry trimmed before the "
        "consumer read it is lost to it, so keep it well above the commits of a consumer outage.",
    )
    sweep_interval_s: float = Field(0.5, gt=0, description="How often the turn-clock sweeper looks for expiries.")
    max_turn_seconds: float = Field(
        86_400.0, description="Largest per-decision time of a realtime time control (and of turn_seconds)."
    )
    zombie_bot_level: str = Field(
        "greedy",
        description="The bot level that plays a seat out once its player resigned or it was abandoned (a 'zombie "
        "seat'); '' = the engine's default decision instead (no worker needed). A client may name another level "
        "only when resigning in an unrated game.",
    )
    abandon_after_timeouts: int = Field(
        3, ge=0, description="A human seat whose turn clock runs out this many decisions in a row (the default "
        "decision is played each time) is abandoned: the zombie bot plays it out and its player ranks last in a "
        "rated game. 0 = never.",
    )
    inactive_game_days: float = Field(
        14.0, ge=0, description="An active game with no accepted change (move, timeout, bot move) for this many days "
        "ends: aborted if no human seat ever decided, else the human seats that must act are abandoned to the "
        "zombie bot, which plays on. Fractions allowed; 0 = never.",
    )
    admin_grpc_addr: str = Field(
        "127.0.0.1:50052", description="host:port of the internal gRPC listener (port 0 = any): GameAdmin, and "
        "GameService without the public limits, for the gateway, the matchmaker and the bot workers. Never expose "
        "it: GameAdmin is not served on GRPC_ADDR.",
    )
    stream_limit_address: int = Field(
        32, ge=0, description="Public gRPC port: open WatchGame streams per client address on one instance; "
        "0 disables.",
    )
    stream_limit_credential: int = Field(
        4, ge=0, description="Public gRPC port: open WatchGame streams per credential (a seat token, or an "
        "account: all its API keys together) on one instance; 0 disables.",
    )
    accounts_url: str | None = Field(
        None, description="Public gRPC port, API keys: the SQL database of the accounts (the gateway's "
        "GATEWAY_ARCHIVE_URL), where API keys are verified; unset = ARCHIVE_URL. With neither, calls with an API key "
        "are refused (UNAUTHENTICATED) and only seat tokens work there.",
    )
    accounts_redis_url: str | None = Field(
        None, description="Public gRPC port, API keys: the gateway's Redis (GATEWAY_REDIS_URL), which keeps the "
        "accounts' seats and cached key lookups; unset = REDIS_URL (a cluster client if REDIS_CLUSTER).",
    )
    accounts_key_prefix: str = Field(
        "sbgw:", description="Public gRPC port, API keys: the gateway's key prefix (GATEWAY_KEY_PREFIX).",
    )
    shutdown_grace_s: float = Field(5.0, description="Seconds in-flight calls get to finish on shutdown.")
    watch_block_ms: int = Field(1000, description="How long one blocking stream read waits before re-checking.")
    watch_token_check_ms: int = Field(
        500, gt=0, description="A WatchGame stream opened with a seat token re-checks that token at least this "
        "often (and after every entry): once it is rotated or revoked (Resign) the stream ends (UNAUTHENTICATED).",
    )
    cached_read_ms: int = Field(
        0, ge=0, description="A seat's legal actions may be answered from this instance's cached metadata and "
        "state for this long after Redis confirmed them (a read, a commit here), without a Redis round trip. The "
        "price: with several instances an answer may be a version another instance has moved on from (a move made "
        "from it is refused as stale; a client that learnt the newer version elsewhere sees an older one), and a "
        "token revoked meanwhile is honoured that long at most, as WatchGame streams honour it "
        "(WATCH_TOKEN_CHECK_MS). 0 (the default): always read Redis, so every read sees every commit before it.",
    )
    heartbeat_s: float = Field(
        15.0, gt=0, description="An idle WatchGame stream sends a 'heartbeat' entry this often (detects gone watchers)."
    )
    health_check_s: float = Field(
        1.0, gt=0, description="How often the gRPC health status is checked against Redis (NOT_SERVING while down)."
    )
    max_message_bytes: int = Field(4 * 1024 * 1024, description="Largest gRPC message accepted.")
    archive_after_s: float = Field(
        60.0, ge=0, description="A finished game is archived (and leaves Redis) this long after its end, so "
        "streams and final reads in progress complete first.",
    )
    archive_interval_s: float = Field(
        1.0, ge=0, description="Pause between two archive passes; 0 = this instance does not archive (its reads "
        "still fall back to the archive).",
    )
    archive_batch: int = Field(
        100, ge=1, le=1000, description="Games one archive pass moves (one SQL transaction; one per game when the "
        "database refuses one of them).",
    )
    archive_lease_s: float = Field(
        30.0, gt=0, description="How long an archiver's claim on a game lasts (a killed archiver's claims expire).",
    )
    archive_retry_s: float = Field(
        3600.0, ge=0, description="A finished game the archive refused (a value, a constraint: services/archive/"
        "refusals.py) stays in Redis, set aside from archive passes; it is tried again this long after, the wait "
        "doubling at each refusal (at most a day). 0 = only when an operator runs "
        "`python -m services.gamestate.quarantine retry`.",
    )

    @model_validator(mode="after")
    def _broker_apart_on_a_cluster(self) -> Settings:
        if self.redis_cluster and not self.celery_broker_url:
            raise ValueError("REDIS_CLUSTER=true needs CELERY_BROKER_URL: Celery cannot use a Redis Cluster as its "
                             "broker; name a standalone Redis for the bot tasks "
                             "(docs/platform/redis-cluster-running.md)")
        return self

    @property
    def broker_url(self) -> str:
        return self.celery_broker_url or self.redis_url

    def credentials(self) -> ServiceCredentials:
        """What the game-state service accepts on GameAdmin (the rotation window included)."""
        return ServiceCredentials.from_secrets(
            self.service_secret, self.service_secret_previous, self.service_secret_previous_until
        )


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    """The process-wide settings (read once from the environment)."""
    return Settings()
