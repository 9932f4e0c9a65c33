"""One version's entry of a game's event stream, one shape for both ends: the service's watch loop sends it
(services/gamestate/fanout.Entry adds the Redis entry id) and the clients decode WatchGame into it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class Update:
    """One version's entry of a watched game, redacted for the watcher."""

    version: int
    kind: str
    actor: int | None
    events: list[dict[str, Any]]
    status: str
    to_act: list[int]
    scores: list[int]
    winners: list[int]
