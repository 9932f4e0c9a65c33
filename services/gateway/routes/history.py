"""A player's finished games, served from the SQL archive (`GET /v1/players/{player_id}/games`).

Newest finished first, with an opaque cursor for the next page; filters by game and status. Only archived
games appear (a game reaches the archive ARCHIVE_AFTER_S after its end). A
player's games are those it created (it owns them) or held a recorded seat in.
"""

from __future__ import annotations

import re
from typing import Literal

from fastapi import APIRouter, Query
from pydantic import BaseModel, Field

from services.archive.repository import BadCursor
from services.gateway.context import Ctx
from services.gateway.http.errors import ERROR_RESPONSES, ApiError
from services.gateway.models.games import TimeControlOut
from services.standings import shown_scores, shown_winners

router = APIRouter(prefix="/v1", responses=ERROR_RESPONSES)

_ID = re.compile(r"^[0-9a-f]{32}$")


class HistoryGame(BaseModel):
    game_id: str
    game: str
    status: str = Field(description="finished or aborted")
    players: int
    seats: list[int] = Field(description="The seats this player held (where recorded)")
    owner: bool = Field(description="This player created the game")
    version: int
    scores: list[int] | None = Field(description="null for an aborted game (it has no result)")
    winners: list[int] | None = Field(description="null for an aborted game")
    rated: bool
    created_ms: int
    finished_ms: int
    time_control: TimeControlOut | None = Field(
        None, description="The game's time control, as GET /v1/games/{id} shows it; None: no clock (or a game "
        "archived before time controls were kept)"
    )


class History(BaseModel):
    player_id: str
    games: list[HistoryGame]
    next_cursor: str | None = Field(description="Pass as `cursor` for the next page; null on the last one")


@router.get("/players/{player_id}/games", response_model=History, summary="A player's archived games, newest first")
async def player_games(
    player_id: str,
    c: Ctx,
    game: str | None = Query(None, max_length=64, description="Only games of this title"),
    status: Literal["finished", "aborted"] | None = Query(None, description="Only games that ended this way"),
    cursor: str | None = Query(None, max_length=200, description="next_cursor of the previous page"),
    limit: int = Query(20, ge=1, le=100),
) -> History:
    if not _ID.match(player_id) or await c.players.name(player_id) is None:
        raise ApiError(404, "no such player")
    try:
        page = await c.archive.history(player_id, game=game or "", status=status or "", cursor=cursor, limit=limit)
    except BadCursor:
        raise ApiError(422, "cursor: not a cursor of this listing") from None
    games = [
        HistoryGame(
            game_id=g.game_id, game=g.game, status=g.status, players=g.players,
            seats=[s for s, p in sorted(g.seat_players.items()) if p == player_id], owner=g.owner == player_id,
            version=g.version, scores=shown_scores(g.status, g.scores), winners=shown_winners(g.status, g.winners),
            rated=g.rated, created_ms=g.created_ms, finished_ms=g.finished_ms, time_control=g.time_control,
        )
        for g in page.games
    ]
    return History(player_id=player_id, games=games, next_cursor=page.next_cursor)
