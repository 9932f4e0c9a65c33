"""The Blue Skies `Game`: factory, JSON restore and static board description."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping
from typing import Any

from engine.blueskies import actions as act
from engine.blueskies import shapes, takeback
from engine.blueskies.constants import AIRPORTS, LOCAL, PHASES
from engine.blueskies.data import BOARD
from engine.blueskies.state import BlueSkiesState
from engine.blueskies.views import json_copy
from engine.core import JSON, Action, Game, State, Whereabouts, rng_from_json


class BlueSkiesGame(Game):
    """Blue Skies (Joe Huber, 2020) for 2-5 players, per docs/rules/blueskies.md."""

    name = "blueskies"
    title = "Blue Skies"
    min_players = 2
    max_players = 5
    options: dict[str, dict[str, JSON]] = {
        "first_player": {
            "default": "random",
            "choices": ["random", 0, 1, 2, 3, 4],
            "description": "Who holds the first-player marker in round 1 (BS-2.5): 'random' (the rule: a uniformly "
            "random seat) or a seat number below the player count (the configuration fixes it).",
        },
    }
    # At most 119 rounds (each round every seat places a gate or banks >= 1 point, BS-8.5.4); per seat:
    # <= 20 purchases, <= 120 "done", <= 119 plays, 1 special discard, <= 31 help + 1 discard.
    # That is < 300 decisions per seat, so 2000 bounds every 5-player game.
    max_game_length = 2000
    codec = act.CODEC
    view_type = shapes.BlueskiesView
    event_types = shapes.EVENT_TYPES

    def new(self, players: int, seed: int, options: dict[str, Any] | None = None) -> BlueSkiesState:
        players = self.check_players(players)
        first = self._first_player(players, self.resolve_options(options)["first_player"])
        state = BlueSkiesState(self, players, random.Random(seed))
        state.setup(first)
        return state

    @staticmethod
    def _first_player(players: int, choice: Any) -> int | None:
        """The `first_player` option as a seat, or None for the rule's random draw (BS-2.5)."""
        if choice == "random":
            return None
        if type(choice) is not int or not 0 <= choice < players:
            raise ValueError(f"option 'first_player' must be 'random' or a seat 0..{players - 1}, not {choice!r}")
        return choice

    def from_json(self, obj: dict[str, JSON]) -> BlueSkiesState:
        try:
            return self._from_json(obj)
        except (AttributeError, KeyError, TypeError, IndexError) as exc:
            raise ValueError(f"not a Blue Skies state: {exc!r}") from exc

    def _from_json(self, obj: dict[str, JSON]) -> BlueSkiesState:
        if obj.get("game") != "blueskies":
            raise ValueError("not a Blue Skies state")
        n = self.check_players(obj["players"])
        state = BlueSkiesState(self, n, rng_from_json(obj["rng"]))
        idx = act.INDEX
        state.first = int(obj["first"])
        state.round = int(obj["round"])
        state.phase = PHASES.index(obj["phase"])
        state.pos = int(obj["pos"])
        state.actor = int(obj["actor"])
        state.budget = int(obj["budget"])
        state.added = int(obj["added"])
        state.points = [int(v) for v in obj["points"]]
        state.supply = [int(v) for v in obj["supply"]]
        state.special_used = [bool(v) for v in obj["special_used"]]
        state.hands = [sorted(idx[c] for c in h) for h in obj["hands"]]
        state.deck = sorted(idx[c] for c in obj["deck"])
        state.discard = sorted(idx[c] for c in obj["discard"])
        state.red = int(obj["bag"]["red"])
        state.green = int(obj["bag"]["green"])
        state.pax = [int(v) for v in obj["pax"]]
        state.gates = [[int(o) for o in g] for g in obj["gates"]]
        state.help_used = bool(obj["help_used"])
        state.help_entitlement = [int(v) for v in obj["help_entitlement"]]
        state.help_chosen = [idx[c] for c in obj["help_chosen"]]
        state.final = json_copy(obj["final"])
        # What each seat knows of the deck (absent from states saved before it was kept: then nothing).
        caps = obj.get("deck_cap") or [None] * n
        state.deck_cap = [None if cap is None else sorted(idx[c] for c in cap) for cap in caps]
        state.deck_sure = [sorted(idx[c] for c in sure) for sure in obj.get("deck_sure") or [[]] * n]
        state.deck_blind = [int(v) for v in obj.get("deck_blind") or [0] * n]
        if not len(state.deck_cap) == len(state.deck_sure) == len(state.deck_blind) == n:
            raise ValueError("a Blue Skies state has one deck knowledge entry per seat")
        if len(state.pax) != len(AIRPORTS) or len(state.gates) != len(AIRPORTS):
            raise ValueError("a Blue Skies state has one entry per airport")
        for a in AIRPORTS:
            if any(o != LOCAL and not 0 <= o < n for o in state.gates[a]):
                raise ValueError(f"bad gate owner at airport {a}")
        state.rebuild_derived()
        return state

    def check_take_back(self, before: State, seat: int, action: Action, after: State) -> None:
        """Purchases until "done" (engine/blueskies/takeback.py)."""
        takeback.check(before, seat, action, after)

    def whereabouts(self, view: Mapping[str, JSON]) -> dict[str, Whereabouts]:
        """The discard pile (face up), the seat's own hand, every hand's size, and the deck: its size and what
        the seat knows of it (`view["deck_known"]`: after a reshuffle, or its own government-help discards)."""
        pile = dict(view["discard"])
        known = view["deck_known"] or {"at_least": {}, "at_most": None}
        places = {
            "discard": Whereabouts(sum(pile.values()), pile, pile),
            "deck": Whereabouts(view["deck_count"], known["at_least"], known["at_most"]),
        }
        for s, count in enumerate(view["hand_counts"]):
            if s == view["seat"]:
                hand: dict[str, int] = dict(Counter(view["hand"]))
                places[f"hand:{s}"] = Whereabouts(count, hand, hand)
            else:
                places[f"hand:{s}"] = Whereabouts(count)
        return places

    def describe(self) -> dict[str, JSON]:
        """The usual description plus the static board (airports, spaces, regions) for clients."""
        out = super().describe()
        out["board"] = {
            "airports": BOARD.raw["airports"],
            "regions": BOARD.raw["regions"],
            "grid": {"cols": 6, "rows": 5},
        }
        return out
