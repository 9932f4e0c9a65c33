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


class GatewaySettings(MatchmakerSettings, RateLimitFields):
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
        20, ge=0, description="Accounts (POST /v1/players) one client address may create per "
        "GATEWAY_ACCOUNTS_WINDOW_S (429 too_many_accounts beyond); 0 disables.",
    )
    accounts_window_s: int = Field(3600, gt=0, description="The window of GATEWAY_ACCOUNTS_PER_ADDRESS.")
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
    follow_games: bool = Field(
        True, description="Run the turn follower: publishes your_turn / game_end of account games to account streams."
    )
    follow_max_games: int = Field(1000, ge=1, description="Games one gateway follows at once (WatchGame streams).")
    follow_scan_s: float = Field(1.0, gt=0, description="How often the follower looks for games nobody follows.")
    follow_lease_s: float = Field(
        15.0, gt=0, description="A follower's lease on a game; another gateway takes over once it lapses."
    )
    cors_origins: list[str] = Field(default_factory=list, description='Allowed CORS origins, JSON list; ["*"] = any.')
    stream_limit_ip: int = Field(
        32, ge=0, description="Open SSE streams (game event streams and account streams together) per client "
        "address on one gateway process; beyond it 429 `too_many_streams`. 0 disables.",
    )
    stream_limit_token: int = Field(
        4, ge=0, description="Open SSE streams per bearer credential (a seat token, an API key) on one gateway "
        "process; beyond it 429 `too_many_streams`. 0 disables.",
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
