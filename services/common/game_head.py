"""What names a game and replays it from its log, one shape for the live record (services/gamestate/records.Meta)
and the archived one (services/archive/record.ArchivedGame): both start with these fields, in this order."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(slots=True)
class GameHead:
    """A game's id, its title, how many seats, its options and seed (with the log, they replay it) and its bots."""

    game_id: str
    game: str
    players: int
    options: dict[str, Any]
    seed: int
    bots: dict[int, str]
