"""The caller's games (`GET /v1/players/me/games`), a page at a time, bounded like the history and with its cursor.

Why this order: a cursor must name a place that does not move while a client pages, so the pages follow the
account's own record of its games (services/accounts/seats.py), never their live state: the games it still plays
first, newest first, then those that ended in the last day, the last ended first. Only the page's games are then read
live, all in one call (GameAdmin `GetGameSummaries`), so each shows its status, turn and clock as they are now.
"""

from __future__ import annotations

from services.accounts import seats
from services.accounts.seats import Held
from services.archive.repository import decode_cursor, encode_cursor
from services.common.standings import shown_scores, shown_winners
from services.gamestate.client import Summary
from services.gateway.context import Context
from services.gateway.models.accounts import MyGame, MyGames

#: Added to a game's `since_ms` while the account plays it, so that one descending integer (the history cursor's
#: position, services/archive/repository.encode_cursor) orders every ongoing game before every ended one
#: (epoch milliseconds stay below it for some 30,000 years).
ONGOING = 10**15


def position(h: Held) -> tuple[int, str]:
    """Where the game stands in the listing (descending): ongoing by when the account got it, then ended by when."""
    if h.ended is None:
        return ONGOING + h.since_ms, h.game_id
    return h.ended_ms or h.since_ms, h.game_id


def page_of(held: list[Held], cursor: str | None, limit: int) -> tuple[list[Held], str | None]:
    """The `limit` games after `cursor` (from the first without one), and the cursor of the next page (None: last).
    BadCursor for a cursor this listing did not make."""
    after = decode_cursor(cursor) if cursor else None
    order = sorted(held, key=position, reverse=True)
    if after is not None:
        order = [h for h in order if position(h) < after]
    page = order[:limit]
    more = len(order) > limit
    return page, encode_cursor(*position(page[-1])) if more else None


def _mine(h: Held, g: Summary) -> MyGame:
    mine = [s for s in h.seats if s in g.to_act] if g.status == "active" else []
    seat = mine[0] if mine else h.seats[0]
    ended = g.status == "finished"
    return MyGame(game_id=h.game_id, game=h.game, seat=seat, seats=h.seats, status=g.status, my_turn=bool(mine),
                  version=g.version, to_act=g.to_act, deadline=g.deadlines.get(seat), since_ms=h.since_ms,
                  scores=shown_scores(g.status, g.scores) if ended else None,
                  winners=shown_winners(g.status, g.winners) if ended else None)


async def my_games(c: Context, player_id: str, cursor: str | None, limit: int) -> MyGames:
    """One page of the account's games, read live in one call; a game gone from the service is left out."""
    page, next_cursor = page_of(await seats.held_games(c.redis, c.keys, player_id), cursor, limit)
    found = {g.game_id: g for g in await c.admin.game_summaries([h.game_id for h in page])} if page else {}
    games = []
    for h in page:
        g = found.get(h.game_id)
        if g is None:
            continue
        games.append(_mine(h, g))
    return MyGames(games=games, next_cursor=next_cursor)
