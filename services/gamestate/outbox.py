"""The outbox: one entry per committed version of every game, written by the commit itself.

Why: what follows a version (the account events `your_turn` and `game_end`, the seats listed as ended, the
ratings settled or dropped) must happen once per version whoever committed it: a move over REST, a bot, the turn
clock, the inactivity sweep. The commit (lua/commit.lua) and the creation (lua/create.lua) append the version to
their bucket's `changes` stream (keys.py: `Keys.changes`) in the same atomic script that writes it, so no version
is committed without its entry and none is announced that was not committed. The stream carries the bucket's hash
tag, so the script still touches one slot on Redis Cluster. One consumer group reads the 64 streams and does the
rest (services/outcomes/).

Each entry: `g` game id, `v` version, `kind` and `actor` of the change, `status`, `to_act`, `before` (who was to act
at the version before), `scores`, `winners` and `places` (services/common/standings.py; places only once the game
is finished), `game`, `seats` (seat -> the player id each seat was created for), `rated` ("1"/"0"), `deadlines`
(seat -> ms of its turn-clock deadline) and `at` (ms of the commit).

Bounded: each stream is trimmed to about `OUTBOX_MAXLEN` entries (XADD MAXLEN ~, which trims whole macro nodes, so
a stream may hold a few hundred more). The bound is a safety net for a consumer that is down for long, not the
normal trimming: an entry trimmed before the consumer group read it is lost to it. At 10,000 commits a second spread
over 64 buckets (~160 a second each), 100,000 entries per bucket is about 10 minutes of a stopped consumer; the
lag alert (deploy/prometheus/alerts.yml: SkyboardOutcomesLagging) fires once the oldest entry not done has been
older than 30 s for 2 minutes, and at ~250 bytes an entry the 64 full streams hold ~1.6 GB at most. Raise
OUTBOX_MAXLEN with the commit rate.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field

from services.common.settings import Settings

#: Default bound of each bucket's outbox stream (Settings.outbox_maxlen, OUTBOX_MAXLEN): see the module docstring.
OUTBOX_MAXLEN: int = Settings.model_fields["outbox_maxlen"].default


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


@dataclass(frozen=True, slots=True)
class Change:
    """One outbox entry, parsed: a committed version of a game."""

    entry_id: str
    game_id: str
    version: int
    kind: str
    actor: int | None
    status: str
    to_act: list[int]
    before: list[int]
    scores: list[int]
    winners: list[int]
    places: list[int]
    game: str
    seats: dict[int, str] = field(default_factory=dict)
    rated: bool = False
    deadlines: dict[int, int] = field(default_factory=dict)
    at_ms: int = 0

    @property
    def ended(self) -> bool:
        """The version ended the game (finished or aborted)."""
        return self.status != "active"

    @classmethod
    def parse(cls, entry_id: bytes | str, raw: Mapping[bytes | str, bytes | str]) -> Change:
        f = {_text(k): _text(v) for k, v in raw.items()}
        actor = f.get("actor", "")
        return cls(
            entry_id=_text(entry_id), game_id=f["g"], version=int(f["v"]), kind=f.get("kind", ""),
            actor=int(actor) if actor not in ("", None) else None, status=f["status"],
            to_act=json.loads(f.get("to_act") or "[]"), before=json.loads(f.get("before") or "[]"),
            scores=json.loads(f.get("scores") or "[]"), winners=json.loads(f.get("winners") or "[]"),
            places=json.loads(f.get("places") or "[]"), game=f.get("game", ""),
            seats={int(s): p for s, p in json.loads(f.get("seats") or "{}").items()},
            rated=f.get("rated") == "1",
            deadlines={int(s): int(ms) for s, ms in json.loads(f.get("deadlines") or "{}").items()},
            at_ms=int(f.get("at") or 0),
        )


def creation_entry(game_id: str, meta: Mapping[str, str], places: str) -> list[str]:
    """The field/value list of version 0's entry, from the metadata the creation writes (lua/create.lua appends
    it as given; a commit's entry is built inside lua/commit.lua from its arguments and the metadata)."""
    fields = {"g": game_id, "v": "0", "kind": "created", "actor": "", "status": meta["status"],
              "to_act": meta["to_act"], "before": "[]", "scores": meta["scores"], "winners": meta["winners"],
              "places": places, "game": meta["game"], "seats": meta["seat_players"], "rated": meta["rated"],
              "deadlines": meta["deadlines"], "at": meta["created_ms"]}
    return [x for kv in fields.items() for x in kv]
