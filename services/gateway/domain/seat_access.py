"""The account acts for its seats (issue #37): turn the bearer of a seat route into the seat token the game-state
service checks.

A seat token is passed on as it is (guests, a seat delegated to someone). An API key (`sbk_...`) is the account's:
the rules (which seat, which refusal) are services/accounts/access.py, shared with the public gRPC port; this module
maps its refusals to HTTP (403 `not_seated`, 422 `seat_ambiguous`, 409 `no_seat_credential`, 401 for a key that
does not work).
"""

from __future__ import annotations

from dataclasses import dataclass

import grpc

from services.accounts import access
from services.gamestate.client import GameServiceError, GameState
from services.gateway.context import Context
from services.gateway.http.errors import ApiError

#: The HTTP status of each refusal reason of access.SeatRefused.
REFUSAL_STATUS = {"not_seated": 403, "seat_ambiguous": 422, "no_seat_credential": 409}


def is_api_key(bearer: str | None) -> bool:
    return access.is_api_key(bearer)


def refused(exc: access.SeatRefused) -> ApiError:
    return ApiError(REFUSAL_STATUS[exc.reason], exc.message, exc.reason)


@dataclass(frozen=True, slots=True)
class ActingSeat:
    """The credential to call the service with, and, when the caller is an account, which account and seat."""

    token: str
    player_id: str | None = None
    seat: int | None = None


async def account_seat(c: Context, game_id: str, api_key: str, seat: int | None) -> ActingSeat | None:
    """The account's seat of `game_id` (None if it holds none); 401 for a key that does not work, else the shared
    refusals (`access.account_seat`) as HTTP errors."""
    player_id = await c.player(api_key)
    try:
        found = await access.account_seat(c.redis, c.keys, c.settings.service_secret or "", player_id, game_id, seat)
    except access.SeatRefused as exc:
        raise refused(exc) from None
    return ActingSeat(found.token, found.player_id, found.seat) if found is not None else None


async def acting_seat(c: Context, game_id: str, bearer: str, seat: int | None = None) -> ActingSeat:
    """What a seat route acts with: a seat token as given, or the API key's seat (403 `not_seated` if its account
    holds no seat in the game)."""
    if not is_api_key(bearer):
        return ActingSeat(bearer)
    found = await account_seat(c, game_id, bearer, seat)
    if found is None:
        raise refused(access.not_seated(game_id))
    return found


async def viewer_token(c: Context, game_id: str, bearer: str | None, seat: int | None = None) -> str | None:
    """The credential of a read that a spectator may also make: an API key whose account holds no seat reads as a
    spectator."""
    if bearer is None or not is_api_key(bearer):
        return bearer
    found = await account_seat(c, game_id, bearer, seat)
    return found.token if found is not None else None


async def read_game(c: Context, game_id: str, bearer: str | None, seat: int | None = None) -> tuple[GameState,
                                                                                                  str | None]:
    """(the game as the caller may see it, the credential that read it): an API key whose seat no longer takes its
    token (resigned, or an ended game's tokens expired) reads as a spectator rather than failing."""
    viewer = await viewer_token(c, game_id, bearer, seat)
    try:
        return await c.gamestate.get_game(game_id, viewer), viewer
    except GameServiceError as exc:
        if viewer is None or viewer == bearer or exc.code != grpc.StatusCode.UNAUTHENTICATED:
            raise
    return await c.gamestate.get_game(game_id), None


async def keep_rotated(c: Context, game_id: str, seat: int, token: str) -> None:
    """A seat's token was rotated (with the API key or with the old seat token): the account's kept credential
    follows (access.keep_rotated, which the public gRPC port calls too)."""
    await access.keep_rotated(c.redis, c.keys, c.settings.service_secret or "", game_id, seat, token)
