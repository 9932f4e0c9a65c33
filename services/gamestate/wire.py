"""How the game-state service writes values down: its clock in milliseconds, compact JSON for Redis and the
gRPC replies, and the fingerprint an idempotency key is bound to."""

from __future__ import annotations

import hashlib
import json
import time
from typing import Any

import orjson

from engine.core import canonical_json
from services.common import boundedjson


def now_ms() -> int:
    return int(time.time() * 1000)


def dumps(obj: Any) -> str:
    """Compact JSON text for Redis and the gRPC replies. orjson (several times faster) for what it takes;
    the stdlib for what it refuses (non-string keys, integers past 64 bits, lone surrogates). Readers get the
    same values either way: the texts differ only in escapes of non-ASCII characters and in how some floats
    are spelled (NaN and infinities, which are not JSON, become null)."""
    try:
        return orjson.dumps(obj).decode()
    except TypeError:  # orjson.JSONEncodeError included
        return json.dumps(obj, separators=(",", ":"))


def fingerprint(action_json: str, expected_version: int) -> str:
    """What an idempotency key is bound to: the same key with another request is refused."""
    try:
        body = canonical_json(boundedjson.loads(action_json))
    except ValueError:  # JsonRefused too: the action is refused later, the raw text is fingerprint enough
        body = action_json
    return hashlib.sha256(f"{expected_version}|{body}".encode()).hexdigest()
