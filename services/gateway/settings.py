"""Configuration of the REST gateway, from environment variables (the matchmaker's fields included).

Variable names are the upper-case field names prefixed with `GATEWAY_`, e.g.
`GATEWAY_REDIS_URL`, `GATEWAY_GAMESTATE_ADDR`, `GATEWAY_RATE_LIMIT_IP`. The
defaults work for a local run next to a game-state service on 127.0.0.1:50051.
"""

from __future__ import annotations

from pydantic import Field, model_validator
from pydantic_settings import SettingsConfigDict

from services.common.settings import RateLimitFields
from services.matchmaker.settings import MatchmakerSettings
from services.webhooks.settings import WebhookFields


class GatewaySettings(MatchmakerSettings, RateLimitFields, WebhookFields):
    """Every knob of the gateway (HTTP side), on top of the matchmaker's (the gateway queues its tickets) and the
    rate limits of every public listener (services/common/settings.py)."""

    model_config = SettingsConfigDict(env_prefix="GATEWAY_", extra="ignore", frozen=True)

    host: str = Field("127.0.0.1", description="Address uvicorn binds.")
    port: int = Field(8000, description="Port uvicorn binds.")
    access_log: bool = Field(
        False, description="uvicorn's per-request access log (off by default: formatting it costs CPU per request)."
    )
    redis_client_name: str = Field(
        "skyboard-gateway", description="CLIENT SETNAME of the gateway's Redis connections, so CLIENT LIST shows "
        "which connections are the gateway's (no spaces).",
    )
    migrate: bool = Field(
        True, description="Apply the SQL migrations at start (idempotent; replicas take turns on PostgreSQL). Off "
        "when a job runs `python -m services.archive upgrade` before the rollout.",
    )
    allow_anonymous_create: bool = Field(
        False,
        description="Development only: POST /v1/games without an API key creates an unowned game (no quotas). "
        "Off by default: creating a game needs a player's API key.",
    )
    grpc_host: str = Field("127.0.0.1", description="Address the gateway's gRPC listener (TournamentService) binds.")
    grpc_port: int = Field(
        50053, ge=0, le=65535, description="Port of the gateway's gRPC listener: skyboard.v1.TournamentService (the "
        "tournament operations of the REST API, with an account's API key as `authorization: Bearer` metadata), "
        "health and reflection; 0 = off.",
    )
    metrics_host: str = Field("127.0.0.1", description="Address the Prometheus exporter binds (0.0.0.0 in containers).")
    metrics_port: int = Field(
        9104, ge=0, description="Port of the gateway's Prometheus exporter, apart from the public API port; 0 = off."
    )
    max_body_bytes: int = Field(64 * 1024, gt=0, description="Largest request body accepted (413 beyond).")
    trusted_proxies: str = Field(
        "",
        description="Comma-separated IPs or CIDRs of reverse proxies whose X-Forwarded-For names the real client "
        "(per-IP rate limits, logs); empty = trust none, so a client cannot pick its own IP; '*' = any peer.",
    )
    accounts_per_address: int = Field(
        30, ge=0, description="Accounts (POST /v1/players) one client address may create per "
        "GATEWAY_ACCOUNTS_WINDOW_S, the short tier: a classroom or an office behind one address signs up at once "
        "(429 too_many_accounts beyond); 0 disables.",
    )
    accounts_window_s: int = Field(600, gt=0, description="The window of GATEWAY_ACCOUNTS_PER_ADDRESS.")
    accounts_per_address_daily: int = Field(
        100, ge=0, description="Accounts one client address may create per day (UTC), the tier that bounds mass "
        "creation, whatever the short tier allows (429 too_many_accounts beyond); 0 disables.",
    )
    api_key_grace_s: int = Field(
        86_400, ge=0, description="After POST /v1/players/me/keys, how long the replaced API key keeps working."
    )
    api_keys_max: int = Field(
        5, ge=2, description="Working API keys one account may hold: the current one and those in their grace "
        "period. A rotation beyond it is refused (409 too_many_keys) until a grace ends or the current key revokes "
        "the others (POST /v1/players/me/keys/revoke-others).",
    )
    challenge_ttl_s: int = Field(
        86_400, gt=0, description="A pending challenge expires this long after it was sent."
    )
    challenges_per_sender: int = Field(
        20, ge=0, description="Pending challenges one account may have sent at once (429 too_many_challenges "
        "beyond); 0 disables.",
    )
    challenges_per_recipient: int = Field(
        50, ge=0, description="Pending challenges one account may be sent at once, from everyone (429 "
        "too_many_challenges beyond); 0 disables.",
    )
    tournaments_per_day: int = Field(
        5, ge=0, description="Tournaments one account may create in 24 hours (429 `quota_exceeded` beyond).",
    )
    tournament_max_players: int = Field(
        1024, ge=2, le=100_000, description="The most entrants an organiser may allow in one tournament.",
    )
    cors_origins: list[str] = Field(default_factory=list, description='Allowed CORS origins, JSON list; ["*"] = any.')
    stream_limit_ip: int = Field(
        32, ge=0, description="Open SSE streams (game event streams and account streams together) per client "
        "address on one gateway process; beyond it 429 `too_many_streams`. 0 disables.",
    )
    stream_limit_token: int = Field(
        4, ge=0, description="Open SSE streams per bearer credential (a seat token, or an account: all its API keys "
        "together, as for rate limits) on one gateway process; beyond it 429 `too_many_streams`. 0 disables.",
    )
    ready_cache_s: float = Field(
        1.0, ge=0, description="Seconds one check of the backends answers /readyz (never rate-limited) for every "
        "caller, so a flood of calls cannot become one of backend round trips; 0: only callers arriving together "
        "share a check.",
    )
    replay_cache_size: int = Field(
        256, ge=1, description="Replay steps of finished games (/webclient/replay) each gateway keeps computed (LRU)."
    )
    sse_ping_s: float = Field(15.0, gt=0, description="Seconds between SSE keep-alive comments.")
    min_seconds_per_decision: float = Field(
        5.0, ge=0, description="The shortest time per decision a realtime time control (or `turn_seconds`) may give "
        "on POST /v1/games, tickets and challenges (422 clock_too_fast below it).",
    )
    @model_validator(mode="after")
    def _default_clock_allowed(self) -> GatewaySettings:
        if self.mm_seconds_per_decision < self.min_seconds_per_decision:
            raise ValueError("GATEWAY_MM_SECONDS_PER_DECISION is below GATEWAY_MIN_SECONDS_PER_DECISION "
                             "(min_seconds_per_decision): every ticket without a time control would be refused")
        return self


def proxy_options(settings: GatewaySettings) -> dict[str, object]:
    """uvicorn's own X-Forwarded-For handling (ProxyHeadersMiddleware), trusting exactly `trusted_proxies`.

    uvicorn would otherwise trust 127.0.0.1 by default, letting any local client name its own address."""
    trusted = settings.trusted_proxies.strip()
    return {"proxy_headers": bool(trusted), "forwarded_allow_ips": trusted or None}
