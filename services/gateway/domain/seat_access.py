"""The account acts for its seats (docs/decisions/accounts.md): turn the bearer of a seat route into the seat token the
game-state service checks.

A seat token is passed on as it is (guests, a seat delegated to someone). An API key (`sbk_...`) is the account's:
the rules (which seat, which refusal) are services/accounts/access.py, shared with the public gRPC port; this module
maps its refusals to HTTP (403 `not_seated`, 422 `seat_ambiguous`, 409 `no_seat_credential`, 401 for a key that
does not work). A game stream an API key opens is re-checked while it lasts (`watch_game`,
services/accounts/revocation.py): the token it resolved to is the seat's, not the key's.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass

import grpc

from services.accounts import access, revocation
from services.accounts.revocation import KeyHold
from services.gamestate.client import GameServiceError, GameState
from services.gamestate.updates import Update
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


@dataclass(frozen=True, slots=True)
class Viewer:
    """Who reads a game a spectator may also read: `token`, the credential to read with (None: a spectator), and
    for an API key `hold`, what a stream it opens re-checks (services/accounts/revocation.py)."""

    token: str | None
    hold: KeyHold | None = None


async def viewer(c: Context, game_id: str, bearer: str | None, seat: int | None = None) -> Viewer:
    """The credential of a read that a spectator may also make: an API key whose account holds no seat reads as a
    spectator."""
    if bearer is None or not is_api_key(bearer):
        return Viewer(bearer)
    found = await account_seat(c, game_id, bearer, seat)
    if found is None:
        return Viewer(None, KeyHold(bearer, await c.player(bearer), game_id))
    return Viewer(found.token, KeyHold(bearer, found.player_id or "", game_id, found.seat))


async def read_game(c: Context, game_id: str, bearer: str | None, seat: int | None = None) -> tuple[GameState,
                                                                                                  Viewer]:
    """(the game as the caller may see it, who read it): an API key whose seat no longer takes its token
    (resigned, or an ended game's tokens expired) reads as a spectator rather than failing."""
    reader = await viewer(c, game_id, bearer, seat)
    try:
        return await c.gamestate.get_game(game_id, reader.token), reader
    except GameServiceError as exc:
        if reader.token is None or reader.hold is None or exc.code != grpc.StatusCode.UNAUTHENTICATED:
            raise
    hold = reader.hold
    return await c.gamestate.get_game(game_id), Viewer(None, KeyHold(hold.api_key, hold.player_id, game_id))


def watch_game(c: Context, game_id: str, reader: Viewer, after: int | None) -> AsyncIterator[Update]:
    """The game's updates as `reader` may see them; a stream an API key opened ends (Revoked) once the key stops
    working or, read as a seat, the account stops holding it (services/accounts/revocation.py)."""
    updates = c.gamestate.watch(game_id, reader.token, after)
    if reader.hold is None:
        return updates
    return revocation.until_revoked(updates, revocation.checker(c.redis, c.keys, c.accounts_db, reader.hold))


async def rotated(c: Context, game_id: str, seat: int, token: str, caller: str | None) -> None:
    """A seat's token was rotated (with the API key of the account `caller`, or with the old seat token: None):
    the caller's account keeps acting for the seat, any other holder is dropped (access.rotated, which the public
    gRPC port calls too)."""
    await access.rotated(c.redis, c.keys, c.settings.service_secret or "", game_id, seat, token, caller)
