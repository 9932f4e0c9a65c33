"""What the storage layer reads and writes about a game, apart from how (store.py does the Redis I/O): a game's
metadata (`Meta`, the game's one record: services/common/game_record.py), a new game (`Creation`), a change to
commit (`Commit`) and its outcome (`CommitResult`)."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, field
from typing import Any

from engine.core import Game, State
from services.common.game_record import GameRecord, Undo
from services.gamestate.updates import CHANGE_KINDS

#: A game's metadata hash, decoded (`Meta.from_hash`) and encoded (`Meta.to_hash`): the one record of a game, the
#: archive's too (services/common/game_record.py)
Meta = GameRecord


@dataclass(slots=True)
class Creation:
    """One new game to write: its engine state at version 0 and what the metadata records."""

    game_id: str
    game: Game
    state: State
    players: int
    options: dict[str, Any]
    seed: int
    bots: dict[int, str]
    token_hashes: dict[int, str]
    clock_ms: int
    created_events: list[dict[str, Any]]
    #: bot seats must act first: arm the re-dispatch timer this many ms from now, in the same atomic write
    bot_wait_ms: int | None = None
    owner: str = ""
    bot_key: str = field(default="", repr=False)
    time_control: dict[str, Any] | None = None
    #: seat -> reserve ms at the start (realtime controls with a reserve)
    reserves: dict[int, int] = field(default_factory=dict)
    rated: bool = False
    #: human seat -> the player seated there (the archive indexes the game under each of them)
    seat_players: dict[int, str] = field(default_factory=dict)


@dataclass(slots=True)
class Commit:
    """One change to commit: the new state and what to record about it."""

    expected_version: int
    state: State
    seat: int | None  # None: the game's own change (an inactivity abort, abandonment)
    kind: str  # one of updates.CHANGE_KINDS: move | timeout | auto | resign | abandon | abort | take_back
    action: dict[str, Any] | None
    events: list[dict[str, Any]]
    clock_ms: int
    keep_deadlines: dict[int, int] = field(default_factory=dict)  # seats whose decision clock runs on
    idem_key: str | None = None
    idem_value: dict[str, Any] | None = None
    extra_meta: dict[str, str] = field(default_factory=dict)
    #: (seat, token hash) the seat's stored hash must still be, checked in the same atomic step: a move
    #: decided on cached metadata (no read of the hash first) is refused if the token was rotated meanwhile
    token_check: tuple[int, str] | None = None
    #: bot seats must act next: arm the re-dispatch timer this many ms from now in the same atomic step, so a
    #: service killed between the commit and queueing the bot move still leaves the game a timer to wake it
    bot_wait_ms: int | None = None
    #: the game's status after this commit when it is not the state's own ("aborted"); None = from the state
    status: str | None = None
    #: seat -> reserve ms after this commit (the next decisions' deadlines include them); stored with it
    reserves: dict[int, int] = field(default_factory=dict)
    #: the commit's time (epoch ms); None = now. The service passes the instant it spent reserves at.
    at_ms: int | None = None
    #: the seats resigned or abandoned once this commit is in (services/common/standings.py): they never win, and when
    #: at most one seat is left the game finishes here. Required: a site that forgot it would crown a resigner.
    forfeited: Collection[int] = field(kw_only=True)
    #: the take-back this commit leaves (a move's, services/gamestate/takeback.py); None: nothing can be taken back
    undo: Undo | None = field(default=None, kw_only=True)
    #: a take-back's: the version whose state it restores (the log entry's `restores`)
    state_of: int | None = field(default=None, kw_only=True)

    def __post_init__(self) -> None:
        if self.kind not in CHANGE_KINDS:  # a new kind is named in updates.CHANGE_KINDS, so the docs list it
            raise ValueError(f"unknown commit kind {self.kind!r}")

    # What a change is: one constructor per kind, each taking what that kind records (the rest keeps its default).

    @classmethod
    def move(cls, version: int, state: State, seat: int, action: dict[str, Any], events: list[dict[str, Any]],
             clock_ms: int, keep_deadlines: dict[int, int], *, idem_key: str | None,
             idem_value: dict[str, Any] | None, token_check: tuple[int, str] | None, bot_wait_ms: int | None,
             extra_meta: dict[str, str], reserves: dict[int, int], at_ms: int, forfeited: Collection[int],
             undo: Undo | None = None) -> Commit:
        """A seat's own decision, perhaps idempotent, its token checked in the commit's atomic step; `undo`: the
        take-back it leaves, when the engine allows one."""
        return cls(version, state, seat, "move", action, events, clock_ms, keep_deadlines, idem_key=idem_key,
                   idem_value=idem_value, extra_meta=extra_meta, token_check=token_check, bot_wait_ms=bot_wait_ms,
                   reserves=reserves, at_ms=at_ms, forfeited=forfeited, undo=undo)

    @classmethod
    def take_back(cls, version: int, state: State, seat: int, restores: int, events: list[dict[str, Any]],
                  clock_ms: int, keep_deadlines: dict[int, int], *, idem_key: str | None,
                  idem_value: dict[str, Any] | None, token_check: tuple[int, str] | None, bot_wait_ms: int | None,
                  reserves: dict[int, int], at_ms: int, forfeited: Collection[int], undo: Undo | None) -> Commit:
        """A seat takes back its decision(s): `state` is the one of version `restores` again, perhaps idempotent, its
        token checked in the commit's atomic step; `undo` is the take-back that version left."""
        return cls(version, state, seat, "take_back", None, events, clock_ms, keep_deadlines, idem_key=idem_key,
                   idem_value=idem_value, token_check=token_check, bot_wait_ms=bot_wait_ms, reserves=reserves,
                   at_ms=at_ms, forfeited=forfeited, undo=undo, state_of=restores)

    @classmethod
    def auto(cls, version: int, state: State, seat: int, action: dict[str, Any], events: list[dict[str, Any]],
             clock_ms: int, keep_deadlines: dict[int, int], *, bot_wait_ms: int | None, reserves: dict[int, int],
             forfeited: Collection[int]) -> Commit:
        """The default action played for a seat nobody plays any more (auto-play)."""
        return cls(version, state, seat, "auto", action, events, clock_ms, keep_deadlines, bot_wait_ms=bot_wait_ms,
                   reserves=reserves, forfeited=forfeited)

    @classmethod
    def timeout(cls, version: int, state: State, seat: int, action: dict[str, Any], events: list[dict[str, Any]],
                clock_ms: int, keep_deadlines: dict[int, int], *, bot_wait_ms: int | None, extra_meta: dict[str, str],
                reserves: dict[int, int], at_ms: int, forfeited: Collection[int]) -> Commit:
        """The default action played for a seat whose turn clock ran out (perhaps abandoning it)."""
        return cls(version, state, seat, "timeout", action, events, clock_ms, keep_deadlines, extra_meta=extra_meta,
                   bot_wait_ms=bot_wait_ms, reserves=reserves, at_ms=at_ms, forfeited=forfeited)

    @classmethod
    def resign(cls, version: int, state: State, seat: int, events: list[dict[str, Any]], clock_ms: int,
               keep_deadlines: dict[int, int], *, extra_meta: dict[str, str], bot_wait_ms: int | None,
               reserves: dict[int, int], forfeited: Collection[int]) -> Commit:
        """A seat resigns: no action, the seat handed over (`extra_meta`); the state does not change."""
        return cls(version, state, seat, "resign", None, events, clock_ms, keep_deadlines, extra_meta=extra_meta,
                   bot_wait_ms=bot_wait_ms, reserves=reserves, forfeited=forfeited)

    @classmethod
    def abort(cls, version: int, state: State, seat: int | None, events: list[dict[str, Any]], clock_ms: int, *,
              reserves: dict[int, int], forfeited: Collection[int], at_ms: int | None = None) -> Commit:
        """The game ends unrated (status "aborted"): on a seat's request, or the game's own (`seat` None: inactive)."""
        return cls(version, state, seat, "abort", None, events, clock_ms, status="aborted", reserves=reserves,
                   at_ms=at_ms, forfeited=forfeited)

    @classmethod
    def abandon(cls, version: int, state: State, events: list[dict[str, Any]], clock_ms: int,
                keep_deadlines: dict[int, int], *, extra_meta: dict[str, str], bot_wait_ms: int | None,
                reserves: dict[int, int], at_ms: int, forfeited: Collection[int]) -> Commit:
        """The game's own change: inactive seats handed to the zombie bot (`extra_meta`)."""
        return cls(version, state, None, "abandon", None, events, clock_ms, keep_deadlines, extra_meta=extra_meta,
                   bot_wait_ms=bot_wait_ms, reserves=reserves, at_ms=at_ms, forfeited=forfeited)


@dataclass(slots=True)
class CommitResult:
    status: str  # ok | stale | dup | missing | token (token_check failed)
    version: int | None = None
    duplicate: dict[str, Any] | None = None
    deadlines: dict[int, int] = field(default_factory=dict)
    #: the game's status after an "ok" commit: active, finished (by the engine's end or by forfeit), aborted
    game_status: str = "active"

    @property
    def ended(self) -> bool:
        return self.game_status != "active"
