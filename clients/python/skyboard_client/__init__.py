"""skyboard-client: the official Python SDK of the Skyboard REST API.

`Client` (blocking) and `AsyncClient` (asyncio) cover every public operation; answers are pydantic models
(`skyboard_client.models`), refusals typed errors (`skyboard_client.errors`). Submissions carry an
`Idempotency-Key` of their own, kept across retries; 429 and 503 answers are retried after `Retry-After`
(`RetryPolicy`); game and account streams resume with `Last-Event-ID` after a dropped connection.
"""

from skyboard_client._core import RetryPolicy
from skyboard_client.aio import AsyncClient
from skyboard_client.client import Client
from skyboard_client.errors import (
    Conflict,
    Forbidden,
    GameOver,
    IllegalAction,
    InvalidRequest,
    NotFound,
    QuotaExceeded,
    RateLimited,
    SkyboardError,
    StaleVersion,
    StreamClosed,
    Unauthenticated,
    Unavailable,
)
from skyboard_client.models import (
    AccountEvent,
    ChallengeClosedEvent,
    ChallengeEvent,
    CorrespondenceControl,
    GameEndEvent,
    GameEvent,
    GameStartEvent,
    RealtimeControl,
    WebhookDisabledEvent,
    WebhookMessage,
    YourTurnEvent,
)
from skyboard_client.webhooks import WebhookVerificationError

__version__ = "0.1.0"

__all__ = [
    "AccountEvent",
    "AsyncClient",
    "ChallengeClosedEvent",
    "ChallengeEvent",
    "Client",
    "Conflict",
    "CorrespondenceControl",
    "Forbidden",
    "GameEndEvent",
    "GameEvent",
    "GameOver",
    "GameStartEvent",
    "IllegalAction",
    "InvalidRequest",
    "NotFound",
    "QuotaExceeded",
    "RateLimited",
    "RealtimeControl",
    "RetryPolicy",
    "SkyboardError",
    "StaleVersion",
    "StreamClosed",
    "Unauthenticated",
    "Unavailable",
    "WebhookDisabledEvent",
    "WebhookMessage",
    "WebhookVerificationError",
    "YourTurnEvent",
]
