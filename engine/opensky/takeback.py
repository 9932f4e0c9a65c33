"""Which OpenSky decisions a player may take back (`Game.check_take_back`).

Everything is public but a sealed bid before the reveal (OS-1.5), so a decision may be taken back while it
opened nothing and handed no decision to another seat:
- an aircraft token placed while the same player places on (OS-6.5: tokens go one at a time; OS-17.7 when
  leasing);
- a lease's payment before its aircraft are placed (OS-17.8: one payment, then the placements);
- a sealed bid or pass while others are still bidding (OS-10.1: hidden until every bid is in; OS-10.3 reveals
  them all at once, which is final).
The market's choice opens the bidding to every eligible airline (OS-9.5), a hub, callsign or Flash Deal
answer passes the question on (OS-20.3, OS-4.2, OS-12.4) and ancillaries may roll the price die (OS-15.2):
those are final, as is any decision that rolled the passenger dice (OS-8.1).
"""

from __future__ import annotations

from typing import Any

from engine.core import Action, IllegalAction
from engine.opensky.actions import Bid, Lease, Pass, PlaceAircraft

#: Why a decision of a phase is final, when it is, with its rule.
_FINAL = {
    "callsign": ("the next callsign marker is the next seat's to place", "OS-4.2"),
    "hubs": ("the next hub token is the next seat's to place", "OS-20.3"),
    "market": ("the market is open to every eligible airline's bid", "OS-9.5"),
    "flash": ("the Flash Deal question has passed to the next airline", "OS-12.4"),
    "ancillary": ("the sole winner's price is settled", "OS-15.2"),
}


def check(before: Any, seat: int, action: Action, after: Any) -> None:
    """IllegalAction unless `seat`'s `action`, which turned `before` into `after`, may be taken back."""
    phase = before.phase
    if phase == "bid" and isinstance(action, (Bid, Pass)):
        if after.phase != "bid":
            raise IllegalAction("every bid is in and the bids are revealed: that cannot be taken back", "OS-10.3")
    elif phase in ("draft", "lease_place") and isinstance(action, PlaceAircraft):
        if after.phase != phase or after.to_act() != [seat]:
            rule = "OS-6.4" if phase == "draft" else "OS-17.8"
            raise IllegalAction("the placement turn has passed: its last aircraft cannot be taken back", rule)
    elif phase == "lease" and isinstance(action, Lease):
        if after.phase != "lease_place" or after.to_act() != [seat]:
            raise IllegalAction("leasing has passed to the next airline: that cannot be taken back", "OS-17.8")
    else:
        why, rule = _FINAL.get(phase, ("that decision is final", None))
        raise IllegalAction(f"{why}: that cannot be taken back", rule)
    if before.rng.getstate() != after.rng.getstate():  # none of the above rolls; chance is never taken back
        raise IllegalAction("the passenger dice were rolled: that cannot be taken back", "OS-8.1")
