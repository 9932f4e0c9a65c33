"""The Aeroplanes `Game`: static description and setup (AE-3)."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping
from typing import Any, ClassVar

from engine.aeroplanes import era, shapes, takeback
from engine.aeroplanes.actions import CODEC
from engine.aeroplanes.data import DATA
from engine.aeroplanes.model import BLOCKED, EMPTY
from engine.aeroplanes.state import AeroState
from engine.core import JSON, Action, Game, State, Whereabouts

TILES_PER_STAGE = 9
ADVANTAGE_SLOTS = 7  # indexed by type number; types are 2-6


class AeroplanesGame(Game):
    """Aeroplanes: Aviation Ascendant (Martin Wallace), 3-5 players."""

    name = "aeroplanes"
    title = "Aeroplanes: Aviation Ascendant"
    min_players = 3
    max_players = 5
    options: ClassVar[dict[str, dict[str, Any]]] = {}
    #: Generous bound on decisions: random games take a few hundred.
    max_game_length = 20_000
    has_hidden_information = False  # AE: every component is public (see state.determinize)
    codec = CODEC
    view_type = shapes.AeroplanesView
    event_types = shapes.EVENT_TYPES

    def new(self, players: int, seed: int, options: dict[str, Any] | None = None) -> AeroState:
        players = self.check_players(players)
        self.resolve_options(options)
        if isinstance(seed, bool) or not isinstance(seed, int):
            raise ValueError("seed must be an integer")
        s = AeroState(self)
        s.num_players = players
        s.rng = random.Random(seed)
        s.era = 1
        s.first = s.rng.randrange(players)  # AE-3.3 step 1
        # AE-3.3 step 2: from the first player's right, counterclockwise; the first player chooses last.
        s.home_order = [(s.first - k) % players for k in range(1, players + 1)]
        s.current = s.home_order[0]
        s.phase = "home"
        s.acted = 0
        s.money = [0] * players  # AE-3.10
        s.vp = [0] * players
        s.bonus_vp = [0] * players
        s.home = [-1] * players
        s.supply = [[0, TILES_PER_STAGE, TILES_PER_STAGE, TILES_PER_STAGE] for _ in range(players)]
        s.failures = [0] * players
        s.adv = [[0] * ADVANTAGE_SLOTS for _ in range(players)]
        s.adv_supply = [0, 0] + [DATA.advantage_per_type] * 5
        s.cards = [[] for _ in range(players)]
        s.set_aside = [[] for _ in range(players)]
        s.slots = []
        for d in DATA.destinations:
            row = [EMPTY] * d.slots
            if players == 3 and d.slots45:  # AE-3.4: the last slot is the one marked 4/5
                for i in range(d.slots - d.slots45, d.slots):
                    row[i] = BLOCKED
            s.slots.append(row)
        s.display = list(range(1, 13))  # AE-3.8
        s.deck = list(range(13, len(DATA.cards) + 1))
        s.waiting = [0] * (len(DATA.sections) * DATA.section_slots)
        s.overflow = []
        s.bag = [t.id for t in DATA.passengers]
        s.removed = []
        s.notes = 0
        s.marker_taker = -1
        s.pending = None
        s.maintained = False
        s.owned = [0] * players
        era.setup_waiting_area(s)
        return s

    def whereabouts(self, view: Mapping[str, JSON]) -> dict[str, Whereabouts]:
        """Every card and tile is public (AE has no hidden information): each place is known exactly."""
        lists = {
            "display": ("card", [d["card"] for d in view["display"]]),
            "deck": ("card", view["deck"]),
            "bag": ("tile", view["bag"]),
            "waiting": ("tile", [t for slots in view["waiting"].values() for t in slots if t]),
            "overflow": ("tile", view["overflow"]),
            "removed": ("tile", view["removed_passengers"]),
        }
        for p in view["players"]:
            seat = p["seat"]
            lists[f"aircraft:{seat}"] = ("card", [a["card"] for a in p["aircraft"]])
            lists[f"carried:{seat}"] = ("tile", [t for a in p["aircraft"] for t in a["passengers"]])
            lists[f"set_aside:{seat}"] = ("tile", p["passengers_set_aside"])
        places = {}
        for place, (kind, ids) in lists.items():
            names = dict(Counter(f"{kind}:{i}" for i in ids))
            places[place] = Whereabouts(len(ids), names, names)
        return places

    def check_take_back(self, before: State, seat: int, action: Action, after: State) -> None:
        """Within the turn, until a die is rolled (engine/aeroplanes/takeback.py)."""
        takeback.check(before, seat, action, after)

    def from_json(self, obj: dict[str, Any]) -> AeroState:
        s = AeroState(self)
        s.fields_from_json(obj)
        return s

    def static_board(self) -> dict[str, Any]:
        """Static description for clients: destinations with coordinates, connections, waiting sections,
        the 46 aircraft cards, the 96 passenger tiles and the VPs/Era table (the same in every game)."""
        return DATA.board_json
