"""The account acts for its seats (issue #37): turn the bearer of a seat route into the seat token the game-state
service checks.

A seat token is passed on as it is (guests, a seat delegated to someone). An API key (`sbk_...`) is the account's:
the seat is the one the account holds in that game (`accounts.seats`), or the one the caller names (`seat`) when
it holds several (hot-seat), and the credential is the seat's token the platform keeps sealed for the account. So
the service keeps checking one seat token per seat, and no secret is stored in clear.
"""

from __future__ import annotations

from dataclasses import dataclass

import grpc

from services.accounts import seats
from services.gamestate.client import GameServiceError, GameState
from services.gateway.context import Context
from services.gateway.domain.api_keys import HUMAN_KEY_PREFIX
from services.gateway.http.errors import ApiError


def is_api_key(bearer: str | None) -> bool:
    return bearer is not None and bearer.startswith(HUMAN_KEY_PREFIX)


@dataclass(frozen=True, slots=True)
class ActingSeat:
    """The credential to call the service with, and, when the caller is an account, which account and seat."""

    token: str
    player_id: str | None = None
    seat: int | None = None


async def account_seat(c: Context, game_id: str, api_key: str, seat: int | None) -> ActingSeat | None:
    """The account's seat of `game_id` (None if it holds none); 401 for a key that does not work, 422
    `seat_ambiguous` if it holds several and names none, 403 `not_seated` for a named seat it does not hold, 409
    `no_seat_credential` when the platform keeps no token for the seat."""
    player_id = await c.player(api_key)
    held = await seats.held(c.redis, c.keys, player_id, game_id)
    if held is None:
        return None
    if seat is None:
        if len(held.seats) > 1:
            raise ApiError(422, f"this account holds seats {held.seats} of game {game_id}: name one with "
                                "?seat=N (or the `seat` field)", "seat_ambiguous")
        seat = held.seats[0]
    elif seat not in held.seats:
        raise ApiError(403, f"this account does not hold seat {seat} of game {game_id} (it holds {held.seats})",
                       "not_seated")
    sealed = held.sealed.get(seat)
    secret = c.settings.service_secret or ""
    token = seats.unseal_seat(secret, player_id, game_id, seat, sealed) if sealed and secret else None
    if token is None:
        raise ApiError(409, f"the platform keeps no credential for seat {seat} of game {game_id}; use the seat "
                            "token", "no_seat_credential")
    return ActingSeat(token, player_id, seat)


async def acting_seat(c: Context, game_id: str, bearer: str, seat: int | None = None) -> ActingSeat:
    """What a seat route acts with: a seat token as given, or the API key's seat (403 `not_seated` if its account
    holds no seat in the game)."""
    if not is_api_key(bearer):
        return ActingSeat(bearer)
    found = await account_seat(c, game_id, bearer, seat)
    if found is None:
        raise ApiError(403, f"this account holds no seat in game {game_id}", "not_seated")
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
    """A seat's token was rotated (with the API key or with the old seat token): if an account holds the seat, its
    kept credential becomes the new token, so the API key keeps acting for it."""
    player_id = await c.redis.hget(c.keys.game_accounts(game_id), str(seat))
    if player_id is not None:
        pid = player_id.decode() if isinstance(player_id, bytes) else player_id
        await seats.keep_token(c.redis, c.keys, c.settings.service_secret or "", pid, game_id, seat, token)
