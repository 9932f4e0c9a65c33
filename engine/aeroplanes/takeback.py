"""Which Aeroplanes decisions a player may take back (`Game.check_take_back`).

A turn is a chain of decisions (the action, then its parts: AE-6.4, AE-8.2), and everything on the table is
public, so the only thing a decision can reveal is chance: a Risk roll (AE-8.13), the advantage dice
(AE-10.1 (b)), the first-player die (AE-6.2) or a draw from the passenger bag at an era's end (AE-14). A
decision may be taken back while the same player's turn goes on (AE-6.1) and no die was rolled, e.g. the
action chosen before its details, Engine Maintenance (AE-6.6), a declared placement before its route, a
tile placed by a white route or an upgrade (AE-8.7) before the action ends. Kept here, not in the compiled
state (ai/native.py): it runs once per human decision, never in a search.
"""

from __future__ import annotations

from typing import Any

from engine.aeroplanes import placement
from engine.aeroplanes.actions import ChooseRoute, RadioBeacon, RollAdvantage, RollNext
from engine.aeroplanes.data import DATA
from engine.core import Action, IllegalAction

#: Decisions that roll dice whatever follows, with the rule that rolls them.
_ROLLS = {RollNext: "AE-8.13", RadioBeacon: "AE-11.6", RollAdvantage: "AE-10.1"}


def check(before: Any, seat: int, action: Action, after: Any) -> None:
    """IllegalAction unless `seat`'s `action`, which turned `before` into `after`, may be taken back."""
    if after.to_act() != [seat]:
        raise IllegalAction("the turn has passed: a decision that ends the turn cannot be taken back", "AE-6.1")
    rule = _ROLLS.get(type(action))
    if rule is None and isinstance(action, ChooseRoute) and _rolls(before, seat, action):
        rule = "AE-8.13"  # the route's first Risk roll is thrown at once
    if rule is None and before.rng.getstate() != after.rng.getstate():
        # chance no rule above names: the turn ended and came back to the same player by the first-player
        # die (AE-6.2), or at an era's end by the bag's draws (AE-14.6)
        rule = "AE-6.2" if before.era == after.era else "AE-14.6"
    if rule is not None:
        raise IllegalAction("the dice were rolled (or tiles drawn from the bag): that cannot be taken back", rule)


def _rolls(before: Any, seat: int, action: ChooseRoute) -> int:
    """How many Risk rolls the declared route needs (AE-8.9)."""
    index = DATA.index
    via = None if action.via is None else index[action.via]
    return len(placement.required_rolls(before, seat, index[action.source], via, before.pending["target"]))
