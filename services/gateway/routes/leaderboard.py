"""The leaderboard of a game: its best rated players, from SQL (ordered by the stored ordinal)."""

from __future__ import annotations

from fastapi import APIRouter, Query

from services.accounts.ratings import Rating
from services.gateway.context import Ctx
from services.gateway.domain.api_keys import KINDS
from services.gateway.http.errors import ERROR_RESPONSES
from services.gateway.models.games import Leaderboard, LeaderboardEntry

router = APIRouter(prefix="/v1", responses=ERROR_RESPONSES)


@router.get("/leaderboard/{game}", response_model=Leaderboard, summary="Best rated players of a game")
async def leaderboard(
    game: str,
    c: Ctx,
    limit: int = Query(50, ge=1, le=500),
    offset: int = Query(0, ge=0, le=100_000),
) -> Leaderboard:
    entry = await c.catalog_entry(game)
    rows = await c.ratings.board(entry["name"], limit, offset)  # SQL: ORDER BY the stored ordinal
    entries = [
        LeaderboardEntry(rank=offset + i + 1, player_id=row.player_id, name=row.name,
                         kind=row.kind if row.kind in KINDS else "human",
                         **Rating(row.mu, row.sigma, row.games).to_json())
        for i, row in enumerate(rows)
    ]
    return Leaderboard(game=entry["name"], entries=entries)
