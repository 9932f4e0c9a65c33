"""Time controls: one shape for REST, gRPC, tickets and the game metadata, and the reserve arithmetic.

Why here, apart from the service: the gateway and the matchmaker read and check the same shape, and the
reserve rule is pure arithmetic on deadlines that the store and the service must agree on.

Shapes (JSON): `{"kind": "realtime", "seconds_per_decision": s, "reserve_seconds": r}` or
`{"kind": "correspondence", "days_per_decision": d}`.

Reserve rule (a "delay" clock): each decision gets `seconds_per_decision`; only the time a seat spends beyond
them is taken from its reserve, a per-seat bank of `reserve_seconds` at the start that never refills. A seat's
deadline is therefore `start + seconds_per_decision + reserve left`, and the timeout fires once both are used
up (its reserve is then 0 for the rest of the game). Correspondence controls have no reserve.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

REALTIME = "realtime"
CORRESPONDENCE = "correspondence"

#: Largest reserve a realtime control may give each seat (a day).
MAX_RESERVE_SECONDS = 86_400.0
#: Longest decision a correspondence control may allow.
MAX_DAYS_PER_DECISION = 30
DAY_MS = 86_400_000


@dataclass(frozen=True, slots=True)
class TimeControl:
    """A validated time control (build it with `parse` or `from_turn_seconds`)."""

    kind: str
    seconds_per_decision: float = 0.0
    reserve_seconds: float = 0.0
    days_per_decision: int = 0

    @property
    def decision_ms(self) -> int:
        """Per-decision time in ms (the metadata's `clock_ms`)."""
        if self.kind == CORRESPONDENCE:
            return self.days_per_decision * DAY_MS
        return max(1, round(self.seconds_per_decision * 1000))

    @property
    def reserve_ms(self) -> int:
        return round(self.reserve_seconds * 1000) if self.kind == REALTIME else 0

    def to_json(self) -> dict[str, Any]:
        if self.kind == CORRESPONDENCE:
            return {"kind": CORRESPONDENCE, "days_per_decision": self.days_per_decision}
        return {"kind": REALTIME, "seconds_per_decision": self.seconds_per_decision,
                "reserve_seconds": self.reserve_seconds}

    @classmethod
    def from_turn_seconds(cls, turn_seconds: float) -> TimeControl | None:
        """The old `turn_seconds` shorthand: realtime with no reserve (0 = no clock)."""
        return cls(REALTIME, float(turn_seconds), 0.0) if turn_seconds else None

    @classmethod
    def parse(cls, obj: Any, max_seconds_per_decision: float = 86_400.0) -> TimeControl:
        """A time control from its JSON shape; ValueError (with a message for the client) otherwise."""
        if not isinstance(obj, dict):
            raise ValueError("time_control must be an object with a 'kind'")
        kind = obj.get("kind")
        if kind == REALTIME:
            _only(obj, {"kind", "seconds_per_decision", "reserve_seconds"})
            per = _number(obj.get("seconds_per_decision"), "seconds_per_decision")
            reserve = _number(obj.get("reserve_seconds", 0), "reserve_seconds")
            if not 0 < per <= max_seconds_per_decision:
                raise ValueError(f"seconds_per_decision must be above 0 and at most {max_seconds_per_decision:g}")
            if not 0 <= reserve <= MAX_RESERVE_SECONDS:
                raise ValueError(f"reserve_seconds must be between 0 and {MAX_RESERVE_SECONDS:g}")
            return cls(REALTIME, per, reserve)
        if kind == CORRESPONDENCE:
            _only(obj, {"kind", "days_per_decision"})
            days = obj.get("days_per_decision")
            if isinstance(days, bool) or not isinstance(days, int) or not 1 <= days <= MAX_DAYS_PER_DECISION:
                raise ValueError(f"days_per_decision must be a whole number of days from 1 to {MAX_DAYS_PER_DECISION}")
            return cls(CORRESPONDENCE, days_per_decision=days)
        raise ValueError(f"time_control kind must be {REALTIME!r} or {CORRESPONDENCE!r}")


def _only(obj: dict[str, Any], allowed: set[str]) -> None:
    extra = sorted(set(obj) - allowed)
    if extra:
        raise ValueError(f"time_control of kind {obj['kind']!r} takes no {', '.join(map(str, extra))}")


def _number(value: Any, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise ValueError(f"{name} must be a number of seconds")
    return float(value)


def spend_reserve(reserves: dict[int, int], deadlines: dict[int, int], seat: int, now: int) -> dict[int, int]:
    """The reserves after `seat` decided at `now`: what it used beyond its per-decision time comes off its
    reserve. `deadlines[seat]` = start + per-decision + the reserve it had at the start (`reserves[seat]`), so the
    reserve began to run at `deadline - reserve`."""
    if seat not in reserves or seat not in deadlines:
        return reserves
    left = reserves[seat]
    used = max(0, now - (deadlines[seat] - left))
    return {**reserves, seat: max(0, left - used)}


def seat_deadline(now: int, clock_ms: int, reserves: dict[int, int], seat: int) -> int:
    """When a decision `seat` starts at `now` times out: its per-decision time plus the reserve it has left."""
    return now + clock_ms + reserves.get(seat, 0)
