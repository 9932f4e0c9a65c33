"""Which Blue Skies decisions a player may take back (`Game.check_take_back`).

A purchase turn is a sequence of purchases, each resolved at once, that ends only with "done" (BS-5.8), and a
purchase draws nothing: a gate opened (BS-5.1) or a local airline bought out (BS-5.4) may be taken back until
the player says "done". Everything else draws from the passenger bag (BS-3.1: a card played, the special
action, government help) or from the hidden deck (BS-6.4), or hands the turn on (BS-8): final. Kept here, not
in the compiled state (ai/native.py): it runs once per human decision, never in a search.
"""

from __future__ import annotations

from typing import Any

from engine.blueskies.actions import BuyGate, Buyout, Discard, Done, Help, HelpDone, PlayCard, Special
from engine.core import Action, IllegalAction

#: Why a decision of each kind is final, with its rule (purchases are not: see `check`).
_FINAL: dict[type, tuple[str, str]] = {
    Done: ("the purchase turn is over", "BS-5.8"),
    PlayCard: ("the card's passengers came out of the bag and a card was drawn", "BS-8.2.1"),
    Special: ("the passengers came out of the bag", "BS-3.2"),
    Discard: ("the discards are made and the hand refilled", "BS-8.2.1"),
    Help: ("the passengers came out of the bag", "BS-8.6.2"),
    HelpDone: ("government help has passed to the next player", "BS-8.6.3"),
}


def check(before: Any, seat: int, action: Action, after: Any) -> None:
    """IllegalAction unless `seat`'s `action`, which turned `before` into `after`, may be taken back."""
    if isinstance(action, (BuyGate, Buyout)):
        if before.rng.getstate() != after.rng.getstate() or after.to_act() != [seat] or after.phase != before.phase:
            raise IllegalAction("the purchase turn is over: that cannot be taken back", "BS-5.8")
        return
    why, rule = _FINAL.get(type(action), ("that decision is final", "BS-8"))
    raise IllegalAction(f"{why}: that cannot be taken back", rule)
