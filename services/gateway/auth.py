"""Who is calling: the bearer credential of a request, as FastAPI dependencies.

`CurrentPlayer` (the API key's player, 401 otherwise) and `SeatToken` (any bearer credential: the game-state
service checks a seat token itself) replace per-route helpers. The dependencies are `async` on purpose: FastAPI
runs a plain `def` dependency in its thread pool, a thread hop per request.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

from fastapi import Depends, Query, Request

from services.gateway.context import Ctx
from services.gateway.http.errors import ApiError


def parse_bearer(header: str | None) -> str | None:
    """The token of an Authorization header value, None without one (never logged); 401 if malformed."""
    if not header:
        return None
    scheme, _, value = header.partition(" ")
    if scheme.lower() != "bearer" or not value.strip():
        raise ApiError(401, "the Authorization header must be 'Bearer <token>'")
    return value.strip()


def required(token: str | None) -> str:
    if token is None:
        raise ApiError(401, "this call needs 'Authorization: Bearer <token>'")
    return token


async def bearer(request: Request) -> str | None:
    """The bearer token of the request, if any (never logged)."""
    return parse_bearer(request.headers.get("authorization"))


async def seat_token(request: Request) -> str:
    return required(parse_bearer(request.headers.get("authorization")))


@dataclass(frozen=True, slots=True)
class Account:
    """The caller's account and the API key it called with (key rotation and account streams need the key)."""

    player_id: str
    api_key: str


async def current_account(request: Request, c: Ctx) -> Account:
    """401 without an API key that works (a seat token is not one)."""
    api_key = await seat_token(request)
    return Account(await c.player(api_key), api_key)


async def current_player(account: Annotated[Account, Depends(current_account)]) -> str:
    return account.player_id


Bearer = Annotated[str | None, Depends(bearer)]
SeatToken = Annotated[str, Depends(seat_token)]
CurrentAccount = Annotated[Account, Depends(current_account)]
CurrentPlayer = Annotated[str, Depends(current_player)]
#: Which of its seats an API key acts for, where its account holds several of one game (hot-seat); a seat token
#: names its seat itself (docs/decisions/accounts.md).
SeatChoice = Annotated[int | None, Query(
    ge=0, le=63, description="With an API key whose account holds several seats of this game (hot-seat): the seat "
    "to act for. Without it the account's only seat (422 `seat_ambiguous` if it holds several); ignored with a "
    "seat token.")]
