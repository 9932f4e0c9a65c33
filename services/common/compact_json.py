"""Compact JSON text, as the platform writes it to Redis and into its gRPC replies."""

from __future__ import annotations

import json
from typing import Any

import orjson


def dumps(obj: Any) -> str:
    """Compact JSON text for Redis and the gRPC replies. orjson (several times faster) for what it takes;
    the stdlib for what it refuses (non-string keys, integers past 64 bits, lone surrogates). Readers get the
    same values either way: the texts differ only in escapes of non-ASCII characters and in how some floats
    are spelled (NaN and infinities, which are not JSON, become null)."""
    try:
        return orjson.dumps(obj).decode()
    except TypeError:  # orjson.JSONEncodeError included
        return json.dumps(obj, separators=(",", ":"))
