"""A scripted OpenSky opponent that plays the subsidy race a new player beat the strongest level with.

The plan (rules: shared/rules/opensky.md):
- callsigns (OS-4.2): put each of its markers on the free airport that most enlarges the *pairing* of the
  callsign airports: the largest set of disjoint direct routes between two callsign airports. Each such route
  touches two subsidised airports, so one aircraft on it takes two cubes (OS-7.2); ties go to the airport with
  the most routes, so its later markers have partners left.
- draft and leasing placements (OS-6.5, OS-17.7): take the most subsidy cubes a single token can (two before
  one), before anything else; the rest of the time, and in every other decision, the game's greedy rule.

Three aircraft on three paired routes take all six cubes: 300 points, what the player took in a 1,600-1,500
game. It reads only its seat's view, as every bot does; it exists to test that a level does not hand the race
over (tests/ai/test_subsidy_race.py, research/2026-12-06-opensky-subsidy-race).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ai.greedy import GreedyBot
from ai.heuristics.opensky import OpenSkyHeuristic, RuleParams, _routes, pairing_size
from engine.core import Action

LEVEL = "subsidy-race"


class SubsidyRaceRule(OpenSkyHeuristic):
    """The greedy rule with the subsidy race's callsign and placement choices."""

    def _race_callsign(self, view: dict[str, Any], seat: int, actions: list[Action]) -> Callable[[Action], float]:
        routes = _routes(view)
        taken = set(view["callsigns"].values())
        degree: dict[str, int] = {}
        for a, b in routes:
            degree[a] = degree.get(a, 0) + 1
            degree[b] = degree.get(b, 0) + 1
        return lambda x: 100.0 * pairing_size(taken | {x.airport}, routes) + degree.get(x.airport, 0)

    def _race_placement(self, view: dict[str, Any], seat: int, actions: list[Action]) -> Callable[[Action], float]:
        free = {code for code, owner in view["subsidy_cubes"].items() if owner < 0}
        rule = self._placement(view, seat, actions)

        def value(action: Action) -> float:
            a, b = action.route.split("-")
            return 10_000.0 * ((a in free) + (b in free)) + rule(action)

        return value

    _SCORED = {
        **OpenSkyHeuristic._SCORED,
        "place_callsign": _race_callsign,
        "place_aircraft": _race_placement,
    }


def subsidy_race_bot(params: RuleParams | None = None) -> GreedyBot:
    """A bot that plays the subsidy race over the rule `params` (default: the greedy level's rule)."""
    bot = GreedyBot(SubsidyRaceRule(params))
    bot.level = LEVEL
    return bot
