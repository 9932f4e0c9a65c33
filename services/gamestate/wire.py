"""How the game-state service writes values down: its clock in milliseconds, compact JSON for Redis and the
gRPC replies, and the fingerprint an idempotency key is bound to."""

from __future__ import annotations

import hashlib
import time

from engine.core import canonical_json
from services.common import boundedjson
from services.common.compact_json import dumps as dumps  # the gRPC replies' JSON, and Redis's


def now_ms() -> int:
    return int(time.time() * 1000)


def fingerprint(action_json: str, expected_version: int) -> str:
    """What an idempotency key is bound to: the same key with another request is refused."""
    try:
        body = canonical_json(boundedjson.loads(action_json))
    except ValueError:  # JsonRefused too: the action is refused later, the raw text is fingerprint enough
        body = action_json
    return hashlib.sha256(f"{expected_version}|{body}".encode()).hexdigest()
