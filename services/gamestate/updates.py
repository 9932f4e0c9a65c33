"""One version's entry of a game's event stream, one shape for both ends: the service's watch loop sends it
(services/gamestate/fanout.Entry adds the Redis entry id) and the clients decode WatchGame into it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

#: What made a version, `Update.kind` (WatchGame's `kind`): "created" is version 0; "move" a seat's decision (a
#: player's or a bot's), "timeout" the default decision played when a clock ran out, "auto" the default decision of
#: a seat nobody plays, "resign", "abandon" and "abort", "take_back" a seat taking back its own decision(s)
#: (services/gamestate/records.Commit, one constructor per kind of change); "archived" an archived game's final entry,
#: sent alone. CHANGE_KINDS are those a commit records.
CREATED, ARCHIVED = "created", "archived"
CHANGE_KINDS = ("move", "timeout", "auto", "resign", "abandon", "abort", "take_back")
KINDS = (CREATED, *CHANGE_KINDS, ARCHIVED)
#: The REST game stream's `state` kinds: KINDS, and "ended" for the `end` event answered at once to a client asking
#: for what follows an ended game's last version (docs/streams.md lists them; tests/docs checks the list).
ENDED = "ended"
STREAM_KINDS = (*KINDS, ENDED)
#: WatchGame's keep-alive entry on an idle stream (not a version: the clients skip it)
HEARTBEAT = "heartbeat"


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
