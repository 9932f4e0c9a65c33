"""A player's history (`GET /v1/players/{id}/games`): the archive's games, and those that ended but that the archive
has not taken yet, newest finished first, in pages with the archive's cursor.

Why both: the game-state service moves a game to the SQL archive `ARCHIVE_AFTER_S` (60 s) after its end, so streams
and final reads still in progress finish on Redis. A history read from the archive alone showed a game only a minute
after it ended. The ended games still in Redis are found through the player's own record of its games
(services/accounts/seats.py) and read live in one call (GameAdmin `GetGameSummaries`), and each is shown exactly as
the archive will show it (the same fields, finished time and position), so nothing moves when the archive takes it.
"""

from __future__ import annotations

import time

from services.accounts import seats
from services.accounts.seats import Held
from services.archive.record import ArchivedGame
from services.archive.repository import decode_cursor, encode_cursor
from services.common.standings import shown_scores, shown_winners
from services.gamestate.client import Summary
from services.gateway.context import Context
from services.gateway.domain.my_games import position
from services.gateway.models.accounts import History, HistoryGame

#: The player's games read live per history read, at most (one GetGameSummaries call): those it plays and those that
#: ended within LIVE_WINDOW_MS, the newest first.
LIVE_MAX = 100
#: How long after its end a game is looked for in the live store: far beyond ARCHIVE_AFTER_S (60 s), after which the
#: archive has it (a game the archive refused and set aside shows once an operator has it archived).
LIVE_WINDOW_MS = 3_600_000


def _archived(player_id: str, g: ArchivedGame) -> HistoryGame:
    return HistoryGame(
        game_id=g.game_id, game=g.game, status=g.status, players=g.players,
        seats=[s for s, p in sorted(g.seat_players.items()) if p == player_id], owner=g.owner == player_id,
        version=g.version, scores=shown_scores(g.status, g.scores), winners=shown_winners(g.status, g.winners),
        rated=g.rated, created_ms=g.created_ms, finished_ms=g.updated_ms, time_control=g.time_control,
    )


def _live(player_id: str, g: Summary) -> HistoryGame:
    """As `_archived` shows the record the archiver makes of this game (services/gamestate/archiver.record_of)."""
    return HistoryGame(
        game_id=g.game_id, game=g.game, status=g.status, players=g.players,
        seats=[s for s, p in sorted(g.seat_players.items()) if p == player_id], owner=g.owner == player_id,
        version=g.version, scores=shown_scores(g.status, g.scores), winners=shown_winners(g.status, g.winners),
        rated=g.rated, created_ms=g.created_ms, finished_ms=g.updated_ms, time_control=g.time_control,
    )


def _candidates(held: list[Held], now_ms: int) -> list[str]:
    """The player's games that may have ended without being archived yet: those it plays (one may have ended a moment
    ago) and those ended within LIVE_WINDOW_MS, the newest first, at most LIVE_MAX."""
    recent = [h for h in held if h.ended is None or (h.ended_ms or 0) >= now_ms - LIVE_WINDOW_MS]
    return [h.game_id for h in sorted(recent, key=position, reverse=True)[:LIVE_MAX]]


async def _recently_ended(c: Context, player_id: str, game: str, status: str) -> list[HistoryGame]:
    """The player's recently ended games (`_candidates`) as the archive lists them, those it has not taken yet among
    them: each game the player is recorded in (its owner or a seated player, services/archive/record.ArchivedGame
    .player_seats), read from Redis, else from the archive."""
    ids = _candidates(await seats.held_games(c.redis, c.keys, player_id), int(time.time() * 1000))
    found = await c.admin.game_summaries(ids) if ids else []
    return [_live(player_id, g) for g in found
            if g.status != "active" and _recorded(player_id, g)
            and (not game or g.game == game) and (not status or g.status == status)]


def _recorded(player_id: str, g: Summary) -> bool:
    """Whether the archive will list the game in this player's history (its owner, or seated there by name)."""
    return g.owner == player_id or player_id in g.seat_players.values()


async def history_page(c: Context, player_id: str, game: str, status: str, cursor: str | None,
                       limit: int) -> History:
    """One page: the archive's next `limit` games merged with the unarchived ones after `cursor` (BadCursor for a
    cursor this listing did not make). The archive's page holds its `limit` newest after the cursor, so the merged
    newest `limit` are the page whatever the mix."""
    after = decode_cursor(cursor) if cursor else None
    page = await c.archive.history(player_id, game=game, status=status, cursor=cursor, limit=limit)
    shown = {g.game_id: _archived(player_id, g) for g in page.games}
    for g in await _recently_ended(c, player_id, game, status):
        # a game the archive holds is read from it (GetGameSummaries falls back to it) at its archived row's very
        # position, so it is on the same page as that row: listed once, the archive's row kept
        if (after is None or (g.finished_ms, g.game_id) < after) and g.game_id not in shown:
            shown[g.game_id] = g
    games = sorted(shown.values(), key=lambda g: (g.finished_ms, g.game_id), reverse=True)
    more = page.next_cursor is not None or len(games) > limit
    games = games[:limit]
    return History(player_id=player_id, games=games,
                   next_cursor=encode_cursor(games[-1].finished_ms, games[-1].game_id) if more and games else None)
