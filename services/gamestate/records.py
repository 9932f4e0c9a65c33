"""What the storage layer reads and writes about a game, apart from how (store.py does the Redis I/O): a game's
metadata (`Meta`), a new game (`Creation`), a change to commit (`Commit`) and its outcome (`CommitResult`)."""

from __future__ import annotations

import json
from collections.abc import Collection
from dataclasses import dataclass, field
from typing import Any

from engine.core import Game, State
from services.common.game_head import GameHead


@dataclass(slots=True)
class Meta(GameHead):
    """A game's metadata hash, decoded (its first fields: services/common/game_head.py)."""

    resigned: list[int]
    token_hashes: dict[int, str]
    status: str
    version: int
    digest: str
    to_act: list[int]
    scores: list[int]
    winners: list[int]
    created_ms: int
    updated_ms: int
    clock_ms: int
    deadline_ms: int
    deadlines: dict[int, int]
    owner: str = ""
    #: seeds this game's bots' randomness (services/workers/move.py): never leaves the platform
    bot_key: str = field(default="", repr=False)
    #: read from the SQL archive (services/gamestate/archive_reads.py), not from Redis
    archived: bool = False
    #: the time control's JSON shape (services/gamestate/clocks.py), None = no clock
    time_control: dict[str, Any] | None = None
    #: seat -> reserve ms left at the start of its current decision (realtime controls with a reserve)
    reserves: dict[int, int] = field(default_factory=dict)
    #: seats abandoned (consecutive timeouts, inactivity): the zombie bot plays them
    abandoned: list[int] = field(default_factory=list)
    #: human seat -> its consecutive turn-clock timeouts (absent = 0)
    timeouts: dict[int, int] = field(default_factory=dict)
    #: created rated (the matchmaker's games)
    rated: bool = False
    #: human seat -> the player seated there, where the creator knew it
    seat_players: dict[int, str] = field(default_factory=dict)

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

    @classmethod
    def from_hash(cls, game_id: str, h: dict[str, str]) -> Meta:
        return cls(
            game_id=game_id,
            game=h["game"],
            players=int(h["players"]),
            options=json.loads(h["options"]),
            seed=int(h["seed"]),
            bots={int(k): v for k, v in json.loads(h["bots"]).items()},
            resigned=json.loads(h.get("resigned", "[]")),
            token_hashes={int(k[4:]): v for k, v in h.items() if k.startswith("tok:")},
            status=h["status"],
            version=int(h["version"]),
            digest=h["digest"],
            to_act=json.loads(h["to_act"]),
            scores=json.loads(h["scores"]),
            winners=json.loads(h["winners"]),
            created_ms=int(h["created_ms"]),
            updated_ms=int(h["updated_ms"]),
            clock_ms=int(h["clock_ms"]),
            deadline_ms=int(h["deadline_ms"]),
            deadlines={int(k): v for k, v in json.loads(h.get("deadlines", "{}")).items()},
            owner=h.get("owner", ""),
            bot_key=h.get("bot_key", ""),
            time_control=json.loads(h["time_control"]) or None,
            reserves={int(k): v for k, v in json.loads(h.get("reserves", "{}")).items()},
            abandoned=json.loads(h.get("abandoned", "[]")),
            timeouts={int(k): v for k, v in json.loads(h.get("timeouts", "{}")).items()},
            rated=h.get("rated") == "1",
            seat_players={int(k): v for k, v in json.loads(h.get("seat_players") or "{}").items()},
        )


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
    kind: str  # move | timeout | auto | resign | abandon | abort
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

    # What a change is: one constructor per kind, each taking what that kind records (the rest keeps its default).

    @classmethod
    def move(cls, version: int, state: State, seat: int, action: dict[str, Any], events: list[dict[str, Any]],
             clock_ms: int, keep_deadlines: dict[int, int], *, idem_key: str | None,
             idem_value: dict[str, Any] | None, token_check: tuple[int, str] | None, bot_wait_ms: int | None,
             extra_meta: dict[str, str], reserves: dict[int, int], at_ms: int, forfeited: Collection[int]) -> Commit:
        """A seat's own decision, perhaps idempotent, its token checked in the commit's atomic step."""
        return cls(version, state, seat, "move", action, events, clock_ms, keep_deadlines, idem_key=idem_key,
                   idem_value=idem_value, extra_meta=extra_meta, token_check=token_check, bot_wait_ms=bot_wait_ms,
                   reserves=reserves, at_ms=at_ms, forfeited=forfeited)

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
