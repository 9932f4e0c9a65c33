"""Take-back bookkeeping, without I/O: which decision a seat may take back now, and the state that restores.

The engine says which decisions may be taken back (`Game.check_take_back`: nothing hidden revealed, no chance
resolved, the turn not passed on); the service adds what no game decides: only the seat that decided, and only
while nothing else happened after it. So the game's metadata holds at most one `Undo`: the one the last commit
left. A move the engine allows leaves one; any other change (another seat's move, a turn-clock default, a
resignation, an abandonment) leaves none. A take-back is a new version whose state is the one of version
`Undo.to` (rebuilt from the log, services/gamestate/replay.py), and it leaves the take-back that version had, so
a seat can take back its decisions one by one to the start of its turn.

`to` is never a take-back's version: after a take-back the state "is" the version it restored (`state_of`), and
a decision made from there takes back to that version. The clock goes back with the state: a take-back restores
the deadline and reserve the seat had before the decision, so taking back never buys time.
"""

from __future__ import annotations

from typing import Any

from engine.core import Action, Game, IllegalAction, State
from services.common.game_record import Undo  # the record keeps one: the data lives with it


def after_move(game: Game, before: State, seat: int, action: Action, after: State, *, state_of: int,
               deadlines: dict[int, int], reserves: dict[int, int]) -> Undo | None:
    """The take-back `seat`'s decision leaves: one to the state it was made in (version `state_of`, with the
    seat's deadline and reserve there), if the engine allows it, else None."""
    try:
        game.check_take_back(before, seat, action, after)
    except IllegalAction:
        return None
    return Undo(seat, state_of, deadlines.get(seat), reserves.get(seat))


def refusal(undo: Undo | None, seat: int) -> str | None:
    """Why `seat` may take nothing back now (None: it may)."""
    if undo is None:
        return ("nothing to take back: the last change to the game was final (dice rolled, cards drawn, bids "
                "revealed, the turn passed on) or was not a decision of this seat")
    if undo.seat != seat:
        return "nothing to take back: the last decision was another seat's"
    return None


def entry_undo(entries: list[dict[str, Any]], version: int) -> Undo | None:
    """The take-back the commit of `version` left, from the log (`entries` from version 1 on)."""
    if version <= 0 or version > len(entries):
        return None
    return Undo.from_json(entries[version - 1].get("undo"))
