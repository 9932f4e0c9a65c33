"""Resigning the seats an account holds in a game, with the seat tokens the platform keeps for it: what an account's
deletion and a withdrawal from a tournament both do. The zombie bot plays each resigned seat out and the seat ranks
last (services/common/standings.py); no API key is needed, so a deleted account's seats can still be resigned."""

from __future__ import annotations

import logging

import grpc

from services.accounts import seats
from services.gamestate.client import GameServiceError
from services.gateway.context import Context

log = logging.getLogger(__name__)

#: What a resignation answers when the seat's part of the game is over already (ended, resigned before, gone).
_NOTHING_TO_RESIGN = (grpc.StatusCode.FAILED_PRECONDITION, grpc.StatusCode.UNAUTHENTICATED,
                      grpc.StatusCode.NOT_FOUND, grpc.StatusCode.PERMISSION_DENIED)


async def resign_held(c: Context, player_id: str, held: seats.Held, whose: str) -> list[int]:
    """Resign each seat of `held` (none where the game is known to have ended), as `POST .../resign` does; the seats
    resigned now. `whose` names the account in the log line of a seat left to its clock (the service did not
    answer)."""
    secret = c.settings.service_secret or ""
    resigned: list[int] = []
    for seat in [] if held.ended else held.seats:
        sealed = held.sealed.get(seat)
        token = seats.unseal_seat(secret, player_id, held.game_id, seat, sealed) if sealed and secret else None
        if token is None:
            continue
        try:
            await c.gamestate.resign(held.game_id, token)
        except GameServiceError as exc:
            if exc.code not in _NOTHING_TO_RESIGN:
                log.warning("%s seat %s of %s is left to its clock: %s", whose, seat, held.game_id, exc.code)
            continue
        resigned.append(seat)
    return resigned
