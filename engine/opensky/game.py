"""The OpenSky `Game`: options and the state factory."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping
from typing import Any, ClassVar

from engine.core import JSON, Action, Game, State, Whereabouts
from engine.opensky import shapes, takeback
from engine.opensky.actions import CODEC
from engine.opensky.board import BOARDS
from engine.opensky.state import OpenSkyState


class OpenSkyGame(Game):
    name: ClassVar[str] = "opensky"
    title: ClassVar[str] = "OpenSky"
    min_players: ClassVar[int] = 2
    max_players: ClassVar[int] = 4
    options: ClassVar[dict[str, dict[str, Any]]] = {
        "map": {
            "default": "europe",
            "choices": ["europe", "north_america"],
            "description": "Board side (OS-3.1): Europe uses Hub tokens (OS-20), North America Cross-border tokens "
            "(OS-21).",
        },
        "callsigns": {
            "default": "choose",
            "choices": ["choose", "random"],
            "description": "Callsign markers (OS-4.2): players place them in turn (choose) or they go on six "
            "distinct random airports (random).",
        },
    }
    max_game_length: ClassVar[int] = 2000
    codec = CODEC
    view_type = shapes.OpenskyView
    event_types = shapes.EVENT_TYPES

    def new(self, players: int, seed: int, options: dict[str, Any] | None = None) -> OpenSkyState:
        players = self.check_players(players)
        resolved = self.resolve_options(options)
        if isinstance(seed, bool) or not isinstance(seed, int):
            raise ValueError("seed must be an integer")
        state = OpenSkyState(self, players, resolved, random.Random(seed))
        state.start(resolved["callsigns"] == "random")
        return state

    def describe(self) -> dict[str, Any]:
        """The contract's description plus both static boards (airports with coordinates and
        countries, routes), which views refer to by map name instead of repeating them."""
        return {**super().describe(), "boards": {name: board.describe() for name, board in BOARDS.items()}}

    def whereabouts(self, view: Mapping[str, JSON]) -> dict[str, Whereabouts]:
        """Hands and tables are public (OS-1.5): every fare card's place is known to everyone."""
        places = {}
        for p in view["players"]:
            for kind in ("hand", "table"):
                cards = {str(v): n for v, n in Counter(p[kind]).items()}
                places[f"{kind}:{p['seat']}"] = Whereabouts(sum(cards.values()), cards, cards)
        return places

    def check_take_back(self, before: State, seat: int, action: Action, after: State) -> None:
        """Placements within a turn, a lease before its placements, a sealed bid before the reveal
        (engine/opensky/takeback.py)."""
        takeback.check(before, seat, action, after)

    def from_json(self, obj: dict[str, Any]) -> OpenSkyState:
        if not isinstance(obj, dict) or obj.get("game") != "opensky":
            raise ValueError("not an OpenSky state")
        resolved = self.resolve_options(obj.get("options"))
        players = self.check_players(obj.get("players"))
        return OpenSkyState.from_json(self, {**obj, "players": players, "options": resolved})
