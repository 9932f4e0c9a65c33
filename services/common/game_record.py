"""One record of a game, live or archived: the game-state service's metadata hash in Redis (`Meta`,
services/gamestate/records.py) and the archive's row in SQL (`ArchivedGame`, services/archive/record.py) are this
one dataclass, and both codecs follow its fields.

Why: the record existed as two hand-written classes joined by three hand-written mappers (hash -> Meta,
Meta -> ArchivedGame -> row, row -> ArchivedGame -> Meta), so a field was added in five places. Now a field is
declared once here, as `field(metadata=kept(...))`: its codec says how its value is written as a Redis hash string
and as an SQL column value, and where it is kept (`hash_key`, `column`; None: not there).
docs/platform/game-record.md walks through adding one; tests/services/test_game_record_codecs.py holds the codecs
to the table and to old data.
"""

from __future__ import annotations

import json
import zlib
from collections.abc import Callable
from dataclasses import MISSING, dataclass, field, fields
from functools import cache
from typing import Any

import orjson

from services.common.compact_json import dumps

#: zlib level of the archived log and final state: 6 is the usual speed/size balance (written once, read rarely)
LEVEL = 6


def pack_lines(lines: list[str]) -> bytes:
    """zlib of the log's JSON lines joined by newlines (compact JSON never holds a raw newline)."""
    return zlib.compress("\n".join(lines).encode(), LEVEL)


def unpack_lines(blob: bytes) -> list[str]:
    text = zlib.decompress(blob).decode()
    return text.split("\n") if text else []


def pack_text(text: str) -> bytes:
    return zlib.compress(text.encode(), LEVEL)


def unpack_text(blob: bytes) -> str:
    return zlib.decompress(blob).decode()


def _loads(text: str) -> Any:
    """orjson (several times faster); the stdlib for what it refuses (integers past 64 bits), so values are the same."""
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError:
        return json.loads(text)


def _same(value: Any) -> Any:
    return value


def _seat_keys(values: dict[int, Any]) -> dict[str, Any]:
    """JSON objects have string keys: seat numbers as strings, in seat order."""
    return {str(s): v for s, v in sorted(values.items())}


def _int_keys(obj: dict[str, Any]) -> dict[int, Any]:
    return {int(s): v for s, v in obj.items()}


@dataclass(frozen=True, slots=True)
class Codec:
    """How one field's value becomes a Redis hash string and an SQL column value, and back. `spread`: the field is
    a seat -> text map kept as one hash field per seat, named `spread` + the seat (the seat tokens' hashes: the
    commit script reads and checks one seat's alone)."""

    to_text: Callable[[Any], str]
    from_text: Callable[[str], Any]
    to_column: Callable[[Any], Any] = _same
    from_column: Callable[[Any], Any] = _same
    spread: str = ""


TEXT = Codec(str, str)
INT = Codec(str, int)
BOOL = Codec(lambda v: "1" if v else "0", lambda t: t in ("1", "true"))
#: a JSON value kept as it is (lists of seats, the options)
JSON = Codec(dumps, _loads)
#: a JSON object, None when empty or absent (the time control)
JSON_OR_NONE = Codec(dumps, lambda t: _loads(t) or None, from_column=lambda c: c or None)
#: seat -> value: a JSON object keyed by the seat as a string (JSON has no integer keys)
BY_SEAT = Codec(lambda d: dumps(_seat_keys(d)), lambda t: _int_keys(_loads(t)), _seat_keys, _int_keys)
#: seat -> text, one hash field per seat ("tok:0", "tok:1", ...): each seat token's SHA-256
SEAT_FIELDS = Codec(str, str, _seat_keys, _int_keys, spread="tok:")
#: an integer or None (kept as "" in the hash)
INT_OR_NONE = Codec(lambda v: "" if v is None else str(v), int)
#: the log's JSON lines, zlib in the archive
LINES = Codec(dumps, _loads, pack_lines, unpack_lines)
#: the final state's canonical JSON text, zlib in the archive
ZTEXT = Codec(str, str, pack_text, unpack_text)


@dataclass(frozen=True, slots=True)
class Undo:
    """`seat` may take back its last decision: the state returns to the one of version `to`, and the seat's
    turn-clock deadline and reserve to what they were there (None: no clock, no reserve). What may be taken back
    and when: services/gamestate/takeback.py."""

    seat: int
    to: int
    deadline: int | None = None
    reserve: int | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"seat": self.seat, "to": self.to}
        if self.deadline is not None:
            out["deadline"] = self.deadline
        if self.reserve is not None:
            out["reserve"] = self.reserve
        return out

    @classmethod
    def from_json(cls, obj: Any) -> Undo | None:
        if not isinstance(obj, dict):
            return None
        return cls(int(obj["seat"]), int(obj["to"]), obj.get("deadline"), obj.get("reserve"))


UNDO = Codec(lambda u: dumps(u.to_json()) if u is not None else "", lambda t: Undo.from_json(_loads(t)))

#: `field(metadata=kept(hash_key=...))`/`field(metadata=kept(column=...))`: under the field's own name
SAME = "="


def kept(codec: Codec, *, hash_key: str | None = SAME, column: str | None = SAME) -> dict[str, Any]:
    """A field's declaration, as `field(metadata=kept(...))`: its codec, its Redis hash field and its SQL column
    (None: not kept there)."""
    return {"codec": codec, "hash_key": hash_key, "column": column}


@dataclass(slots=True, kw_only=True)
class GameRecord:
    """A game as the platform keeps it. The first six fields name a game and, with its log, replay it."""

    game_id: str = field(metadata=kept(TEXT, hash_key=None))  # the hash's key names it
    game: str = field(metadata=kept(TEXT))
    players: int = field(metadata=kept(INT))
    options: dict[str, Any] = field(metadata=kept(JSON))
    seed: int = field(metadata=kept(INT))
    #: seat -> bot level
    bots: dict[int, str] = field(metadata=kept(BY_SEAT))
    status: str = field(metadata=kept(TEXT))
    version: int = field(metadata=kept(INT))
    #: the state's hash: the archiver drops a game from Redis only once SQL holds the same one
    digest: str = field(metadata=kept(TEXT))
    scores: list[int] = field(metadata=kept(JSON))
    winners: list[int] = field(metadata=kept(JSON))
    resigned: list[int] = field(default_factory=list, metadata=kept(JSON))
    #: seat -> SHA-256 of its seat token (never a token)
    token_hashes: dict[int, str] = field(metadata=kept(SEAT_FIELDS))
    created_ms: int = field(metadata=kept(INT))
    #: the last commit's time; once the game ended, when it did (the archive's `finished_ms`)
    updated_ms: int = field(metadata=kept(INT, column="finished_ms"))
    #: ms per decision, 0 = no turn clock (the archive's `turn_ms`)
    clock_ms: int = field(metadata=kept(INT, column="turn_ms"))
    owner: str = field(default="", metadata=kept(TEXT))
    #: human seat -> the player seated there, where the creator knew it (the archive indexes the game under each)
    seat_players: dict[int, str] = field(default_factory=dict, metadata=kept(BY_SEAT))
    #: created rated (the matchmaker's games)
    rated: bool = field(default=False, metadata=kept(BOOL))
    #: the time control's JSON shape (services/gamestate/clocks.py), None = no clock
    time_control: dict[str, Any] | None = field(default=None, metadata=kept(JSON_OR_NONE))
    #: seat -> reserve ms left at the start of its current decision (realtime controls with a reserve); in the
    #: archive, what each seat had left when the game ended
    reserves: dict[int, int] = field(default_factory=dict, metadata=kept(BY_SEAT))
    #: seats abandoned (consecutive timeouts, inactivity): the zombie bot plays them
    abandoned: list[int] = field(default_factory=list, metadata=kept(JSON))

    # -- live only (Redis): an ended game has nobody to act and no clock running

    to_act: list[int] = field(default_factory=list, metadata=kept(JSON, column=None))
    deadline_ms: int = field(default=0, metadata=kept(INT, column=None))
    deadlines: dict[int, int] = field(default_factory=dict, metadata=kept(BY_SEAT, column=None))
    #: seeds this game's bots' randomness (services/workers/move.py): never leaves the platform
    bot_key: str = field(default="", repr=False, metadata=kept(TEXT, column=None))
    #: human seat -> its consecutive turn-clock timeouts (absent = 0)
    timeouts: dict[int, int] = field(default_factory=dict, metadata=kept(BY_SEAT, column=None))
    #: the decision its seat may take back now, as the last commit left it (services/gamestate/takeback.py)
    undo: Undo | None = field(default=None, metadata=kept(UNDO, column=None))
    #: the version whose state this one's is: a take-back's restored version; None = this version's own
    state_of: int | None = field(default=None, metadata=kept(INT_OR_NONE, column=None))

    # -- archive only (SQL); the log and the final state are empty in summaries

    archived_ms: int = field(default=0, metadata=kept(INT, hash_key=None))
    log_lines: list[str] = field(default_factory=list, repr=False, metadata=kept(LINES, hash_key=None, column="log_z"))
    state_text: str = field(default="", repr=False, metadata=kept(ZTEXT, hash_key=None, column="state_z"))
    #: read from the SQL archive, not from Redis
    archived: bool = field(default=False, metadata=kept(BOOL, hash_key=None, column=None))

    # ------------------------------------------------------------------ what a game is

    @property
    def ended(self) -> bool:
        """Finished or aborted: nothing more happens to the game."""
        return self.status != "active"

    def human_seats(self) -> list[int]:
        """Seats a player holds or held: not bot seats, unless a bot took one over (resigned, abandoned)."""
        return [s for s in range(self.players) if s not in self.bots or s in self.resigned or s in self.abandoned]

    @property
    def forfeited(self) -> list[int]:
        """Seats their players resigned or abandoned: they rank last and never win (services/common/standings.py)."""
        return sorted({*self.resigned, *self.abandoned})

    def playing_humans(self) -> list[int]:
        """Human seats still played by their player (neither resigned nor abandoned)."""
        return [s for s in range(self.players) if s not in self.bots and s not in self.resigned
                and s not in self.abandoned]

    def player_seats(self) -> dict[str, list[int]]:
        """player id -> the seats it held (an owner without a seat maps to [])."""
        out: dict[str, list[int]] = {}
        if self.owner:
            out[self.owner] = []
        for seat, player in sorted(self.seat_players.items()):
            if player:
                out.setdefault(player, []).append(seat)
        return out

    # ------------------------------------------------------------------ the codecs

    def to_hash(self) -> dict[str, str]:
        """The Redis metadata hash's fields (what lua/create.lua writes)."""
        out: dict[str, str] = {}
        for name, key, codec in layout(type(self)).hash_fields:
            value = getattr(self, name)
            if codec.spread:
                out.update({f"{codec.spread}{s}": codec.to_text(v) for s, v in sorted(value.items())})
            else:
                out[key] = codec.to_text(value)
        return out

    @classmethod
    def from_hash(cls, game_id: str, h: dict[str, str]) -> GameRecord:
        """The record a metadata hash holds. A field the hash lacks, or holds empty, takes its default: hashes
        written before the field existed still load (a field with no default is required: KeyError)."""
        values: dict[str, Any] = {"game_id": game_id}
        laid = layout(cls)
        for name, key, load, required in laid.hash_readers:
            text = h.get(key)
            if text is None:
                if required:
                    raise KeyError(key)
            elif text or required:
                values[name] = load(text)
        for name, prefix, load in laid.spread_readers:
            n = len(prefix)
            values[name] = {int(k[n:]): load(v) for k, v in h.items() if k.startswith(prefix)}
        return cls(**values)

    def to_row(self) -> dict[str, Any]:
        """The archive's row (services/archive/models.ArchivedGameRow): column -> value."""
        return {column: codec.to_column(getattr(self, name)) for name, column, codec in layout(type(self)).row_fields}

    @classmethod
    def from_row(cls, row: Any, *, blobs: bool = True) -> GameRecord:
        """The record an archive row holds (`archived`); without `blobs`, no log and no final state (their columns
        are not read: the listings). A NULL column (one added after the row was written) takes the default."""
        values: dict[str, Any] = {"archived": True}
        for name, column, codec in layout(cls).row_fields:
            if not blobs and column in BLOB_COLUMNS:
                continue
            value = getattr(row, column)
            if value is not None:
                values[name] = codec.from_column(value)
        return cls(**values)


@dataclass(frozen=True, slots=True)
class Layout:
    """Where a record class keeps its fields: (field, hash field or column, codec), in declaration order."""

    hash_fields: tuple[tuple[str, str, Codec], ...]
    row_fields: tuple[tuple[str, str, Codec], ...]
    #: fields with no default: a hash or a row without them is not a game's
    required: frozenset[str]
    #: what `from_hash` reads: (field, hash field, decoder, required) of the one-field ones, (field, prefix, decoder)
    #: of the spread ones
    hash_readers: tuple[tuple[str, str, Callable[[str], Any], bool], ...]
    spread_readers: tuple[tuple[str, str, Callable[[str], Any]], ...]


@cache
def layout(cls: type[GameRecord]) -> Layout:
    """Read once per class from its fields' `kept(...)` declarations (a subclass that adds a field is laid out too)."""

    def where(kind: str) -> tuple[tuple[str, str, Codec], ...]:
        return tuple((f.name, f.name if f.metadata[kind] == SAME else f.metadata[kind], f.metadata["codec"])
                     for f in fields(cls) if f.metadata[kind] is not None)

    required = frozenset(f.name for f in fields(cls) if f.default is MISSING and f.default_factory is MISSING)
    hashed = where("hash_key")
    return Layout(hashed, where("column"), required,
                  tuple((name, key, c.from_text, name in required) for name, key, c in hashed if not c.spread),
                  tuple((name, c.spread, c.from_text) for name, _, c in hashed if c.spread))


#: the columns a listing leaves unread (deferred by services/archive/repository.py)
BLOB_COLUMNS = frozenset({"log_z", "state_z"})
