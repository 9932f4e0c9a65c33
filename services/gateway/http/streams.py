"""The gateway's bound on open SSE streams (game streams and the account stream, counted together) per client
address and per bearer credential: 429 with the JSON error body beyond it (services/common/stream_slots.py)."""

from __future__ import annotations

from fastapi import Request

from services.accounts.keys import token_hash
from services.common.stream_slots import Slot, StreamSlots, TooManyStreams
from services.gateway.http.errors import ApiError


def open_stream(slots: StreamSlots, request: Request, credential: str | None) -> Slot:
    """A slot for one more stream of this caller, or the 429 `too_many_streams`."""
    address = request.client.host if request.client else "unknown"
    try:
        return slots.acquire(address, token_hash(credential) if credential else None)
    except TooManyStreams as exc:
        raise ApiError(429, exc.message, "too_many_streams") from None
