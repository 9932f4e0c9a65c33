"""What the generated models (records.py) and the hand-written ones (models.py) share: the base model that keeps
unknown fields, the view and event types, and the time controls (hand-written: requests build them too, with
defaults the responses' schemas do not have).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict

Action = dict[str, Any]
if TYPE_CHECKING:
    from skyboard_client.views import GameEventData, View
else:  # validated as JSON objects only: pydantic would drop the fields a TypedDict does not name
    View = dict[str, Any]
    GameEventData = dict[str, Any]


class Model(BaseModel):
    model_config = ConfigDict(extra="allow")


class RealtimeControl(Model):
    """`seconds_per_decision` for free each decision, plus a per-seat `reserve_seconds` bank that never refills."""

    kind: Literal["realtime"] = "realtime"
    seconds_per_decision: float
    reserve_seconds: float = 0


class CorrespondenceControl(Model):
    """Whole days per decision (1-30), no reserve."""

    kind: Literal["correspondence"] = "correspondence"
    days_per_decision: int


TimeControl = RealtimeControl | CorrespondenceControl


def time_control_from(data: Any) -> TimeControl | None:
    if not isinstance(data, dict):
        return None
    if data.get("kind") == "correspondence":
        return CorrespondenceControl.model_validate(data)
    return RealtimeControl.model_validate(data)
