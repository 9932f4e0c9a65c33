"""The shortest time per decision a REST client may ask for (games, tickets, challenges).

Why: a clock of 1 ms per decision was accepted; every seat then timed out before anyone could move, and three
timeouts in a row abandon a human seat to the zombie bot (ABANDON_AFTER_TIMEOUTS), so such a game, created by
one account, took both humans' seats from them within seconds. GATEWAY_MIN_SECONDS_PER_DECISION (5 s by
default) bounds realtime controls and the `turn_seconds` shorthand; correspondence controls count in days.
"""

from __future__ import annotations

from typing import Any

from services.gateway.http.errors import ApiError


def check(min_seconds: float, control: dict[str, Any] | None, turn_seconds: float | None = None) -> None:
    """422 `clock_too_fast` if the time control (or the turn_seconds shorthand) gives a decision less time."""
    per = turn_seconds
    if control is not None and control.get("kind") == "realtime":
        per = control["seconds_per_decision"]
    if per is not None and per < min_seconds:
        raise ApiError(422, f"seconds_per_decision must be at least {min_seconds:g} "
                            f"(GATEWAY_MIN_SECONDS_PER_DECISION); {per:g} was asked", "clock_too_fast")
