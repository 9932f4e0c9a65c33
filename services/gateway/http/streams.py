"""The gateway's bound on open SSE streams (game streams and the account stream, counted together) per client
address and per credential: 429 with the JSON error body beyond it (services/common/stream_slots.py).

An API key's streams count against its account (every key of the account together), as its requests do against
the account's rate-limit bucket; a seat token's against the token."""

from __future__ import annotations

from fastapi import Request

from services.accounts.access import is_api_key
from services.accounts.keys import token_hash
from services.common.stream_slots import Slot, StreamSlots, TooManyStreams, holder_of_account, holder_of_token
from services.gateway.context import Context
from services.gateway.http.errors import ApiError


async def stream_holder(c: Context, credential: str | None) -> str | None:
    """Whose stream bound a stream opened with `credential` counts against (None: a spectator without one). The
    routes have already refused a key that does not work; one retired since counts against itself alone."""
    if credential is None:
        return None
    if is_api_key(credential):
        player_id = await c.players.authenticate(credential)  # the cached lookup the rate limiter made
        if player_id is not None:
            return holder_of_account(player_id)
    return holder_of_token(token_hash(credential))


def open_stream(slots: StreamSlots, request: Request, holder: str | None) -> Slot:
    """A slot for one more stream of this caller (`holder`: `stream_holder`), or the 429 `too_many_streams`."""
    address = request.client.host if request.client else "unknown"
    try:
        return slots.acquire(address, holder)
    except TooManyStreams as exc:
        raise ApiError(429, exc.message, "too_many_streams") from None
