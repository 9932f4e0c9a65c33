"""What a withdrawal from a tournament does beyond the record: the player's running games of the event are resigned
with the seat credentials its account holds, so the zombie bot plays them out (the seat ranks last,
services/common/standings.py) and the director gives the player no further table."""

from __future__ import annotations

from services.accounts import seats
from services.gateway.context import Context
from services.gateway.domain.seat_resignation import resign_held


async def resign_games(c: Context, player_id: str, game_ids: list[str]) -> list[str]:
    """Resign the account's seats in `game_ids`; the games where a seat was resigned now."""
    resigned = []
    for game_id in game_ids:
        held = await seats.held(c.redis, c.keys, player_id, game_id)
        if held is not None and await resign_held(c, player_id, held, "a withdrawn player's"):
            resigned.append(game_id)
    return resigned
