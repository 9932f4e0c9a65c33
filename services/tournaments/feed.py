"""An event's feed: pairings, standings and its end, in one Redis stream per tournament, which the gateway relays
as server-sent events (the SSE id is the stream id, so a client resumes with Last-Event-ID as on the other
streams). Bounded by length; the record itself is in SQL (services/tournaments/store.py)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from redis.asyncio import Redis

from services.tournaments.scoring import shown
from services.tournaments.swiss import Pairing
from services.tournaments.tally import Standing

#: entries kept per tournament (a round's pairing and standings are two)
FEED_MAXLEN = 1000


def feed_key(prefix: str, tournament_id: str) -> str:
    return f"{prefix}tournament:{{{tournament_id}}}:feed"


def standings_json(rows: Sequence[Standing]) -> list[dict[str, Any]]:
    """The standings as every surface shows them: points and Buchholz in points (2.5), not units."""
    return [{"rank": r.rank, "player_id": r.player, "points": shown(r.points), "buchholz": shown(r.buchholz),
             "game_score": r.game_score, "games": r.games, "byes": r.byes, "withdrawn": r.withdrawn} for r in rows]


def pairing_json(pairing: Pairing, games: dict[int, str]) -> dict[str, Any]:
    return {"round": pairing.round, "byes": list(pairing.byes),
            "tables": [{"number": t.number, "players": list(t.players), "game_id": games.get(t.number)}
                       for t in pairing.tables]}


async def publish(redis: Redis, prefix: str, tournament_id: str, kind: str, data: dict[str, Any]) -> None:
    await redis.xadd(feed_key(prefix, tournament_id), {"type": kind, "data": json.dumps(data, separators=(",", ":"))},
                     maxlen=FEED_MAXLEN, approximate=True)
