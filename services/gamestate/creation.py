"""Creating games: one (CreateGame) or a batch written by one Redis script (CreateGames), with owners' quotas.

Why apart: creation validates a request against the engine's own checks and writes version 0, the one write that
is not a compare-and-set on an earlier version; what follows it (the first bot moves) is the pipeline's."""

from __future__ import annotations

import asyncio
import logging
import re
import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

from engine.core import Event
from services.gamestate import errors, tokens
from services.gamestate.bot_dispatch import BotDispatch
from services.gamestate.bots import bot_levels
from services.gamestate.clocks import TimeControl
from services.gamestate.keys import bucket_of
from services.gamestate.lookup import Lookup, json_argument
from services.gamestate.pipeline import Pipeline
from services.gamestate.quotas import QuotaBook, accounts_of
from services.gamestate.records import Creation

log = logging.getLogger(__name__)

OWNER_RE = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
MAX_SEED = 2**63 - 1

#: Most games one CreateGames call may create (more is refused: one call must stay one bounded Redis script).
MAX_BATCH = 256

#: Games prepared between two yields to the event loop while a batch is built.
YIELD_EVERY = 16

#: (game_id, [(seat, token or "", bot level or "")], version) of a created game.
Created = tuple[str, list[tuple[int, str, str]], int]



def new_game_id() -> str:
    """16 URL-safe random characters that never begin with '-': every command line (the archive's `retry <game
    id>`, curl, grep) would read such an id as an option."""
    while True:
        game_id = secrets.token_urlsafe(12)
        if not game_id.startswith("-"):
            return game_id

class CreateArgs(NamedTuple):
    """One CreateGame request, as the RPC carries it."""

    game: str
    players: int
    seed: int | None
    options_json: str
    bots: dict[int, str]
    turn_seconds: float
    #: the player who creates it (quotas apply); "" = no owner (matchmaker, anonymous development games)
    owner: str = ""
    #: the time control's JSON shape (clocks.py); None = `turn_seconds` decides (0 = no clock)
    time_control: dict[str, Any] | None = None
    #: a rated game (the matchmaker's): Resign refuses a client-chosen bot level
    rated: bool = False
    #: human seat -> the player seated there, where the creator knows it (histories, GameView.seats)
    seat_players: dict[int, str] = {}


@dataclass(slots=True)
class _NewGame:
    """A validated creation: what to store, and the human seats' secret tokens (returned once, never stored)."""

    record: Creation
    seat_tokens: dict[int, str]

    def created(self) -> Created:
        r = self.record
        seats = [(s, self.seat_tokens.get(s, ""), r.bots.get(s, "")) for s in range(r.players)]
        return r.game_id, seats, 0


class Creator:
    """Validates creation requests, counts them against quotas and writes them."""

    def __init__(self, lookup: Lookup, pipeline: Pipeline, bots: BotDispatch, *, quotas: QuotaBook | None,
                 allow_anonymous_create: bool, max_turn_seconds: float):
        self.lookup = lookup
        self.pipeline = pipeline
        self.bots = bots
        self.quotas = quotas
        self.allow_anonymous_create = allow_anonymous_create
        self.max_turn_seconds = max_turn_seconds

    async def create(self, args: CreateArgs, *, anonymous: bool = False) -> Created:
        """Create a game; returns (game_id, [(seat, token, bot level)], version).

        `anonymous`: the public CreateGame, allowed only with ALLOW_ANONYMOUS_CREATE (development); otherwise
        creations come through GameAdmin, on an owner's behalf (whose quotas apply) or the matchmaker's."""
        if anonymous and not self.allow_anonymous_create:
            raise errors.denied(
                "anonymous game creation is disabled: create games with a player's API key through the REST API "
                "(POST /v1/games), which records you as the owner"
            )
        new = self._prepare(args)
        await self._reserve(new)
        await self._store_new([new])
        return new.created()

    async def _reserve(self, new: _NewGame) -> None:
        """Charge the game to every account holding a seat, its owner's included (docs/decisions/abuse-bounds.md;
        RESOURCE_EXHAUSTED naming the players over a quota)."""
        record = new.record
        if self.quotas is not None:
            await self.quotas.reserve_all(accounts_of(record.owner, record.seat_players), record.game_id,
                                          len(record.bots))

    async def create_many(self, requests: Sequence[CreateArgs]) -> list[Created | errors.ServiceError]:
        """Create up to MAX_BATCH games with one Redis script; per request its result or its error.

        A refused request (bad input, or an engine failure on it) is reported in its place and changes
        nothing; the others are created. Only a storage failure fails the whole call (nothing written).
        """
        if len(requests) > MAX_BATCH:
            raise errors.invalid(f"at most {MAX_BATCH} games per CreateGames call, got {len(requests)}")
        prepared: list[_NewGame | errors.ServiceError] = []
        for i, args in enumerate(requests):
            if i and i % YIELD_EVERY == 0:
                await asyncio.sleep(0)  # let other calls run: a full batch is tens of ms of engine work
            try:
                new = self._prepare(args)
                await self._reserve(new)
                prepared.append(new)
            except errors.ServiceError as exc:
                prepared.append(exc)
            except Exception:
                log.exception("creating a %r game failed", args.game)
                prepared.append(errors.internal())
        await self._store_new([p for p in prepared if isinstance(p, _NewGame)])
        return [p if isinstance(p, errors.ServiceError) else p.created() for p in prepared]

    def _prepare(self, args: CreateArgs) -> _NewGame:
        """Validate one creation request and build its initial state and seat tokens (nothing stored)."""
        game = self.lookup.game(args.game)
        if args.owner and not OWNER_RE.match(args.owner):
            raise errors.invalid("owner must be 1-64 characters of A-Z a-z 0-9 _ -")
        options = json_argument(args.options_json, "options_json") if args.options_json else {}
        if not isinstance(options, dict):
            raise errors.invalid("options_json must be a JSON object")
        seed, turn_seconds = args.seed, args.turn_seconds
        if seed is not None and not 0 <= seed <= MAX_SEED:
            raise errors.invalid("seed must be between 0 and 2**63-1")
        if not (turn_seconds == turn_seconds) or turn_seconds < 0 or turn_seconds > self.max_turn_seconds:
            raise errors.invalid(f"turn_seconds must be between 0 and {self.max_turn_seconds}")
        control = self._time_control(args)
        try:
            players = game.check_players(args.players)
            options = game.resolve_options(options)
        except ValueError as exc:
            raise errors.invalid(str(exc)) from None
        levels = bot_levels()
        for seat, level in args.bots.items():
            if not 0 <= seat < players:
                raise errors.invalid(f"bot seat {seat} is not a seat of this {players}-player game")
            if level not in levels:
                raise errors.invalid(f"unknown bot level {level!r}; known: {', '.join(levels)}")
        if seed is None:
            seed = secrets.randbits(63)
        try:
            state = game.new(players, seed, options)
        except ValueError as exc:
            raise errors.invalid(str(exc)) from None
        game_id = new_game_id()
        seat_tokens = {s: tokens.new_token(bucket_of(game_id)) for s in range(players) if s not in args.bots}
        created = Event("game_created", {"game": game.name, "players": players, "options": options})
        record = Creation(
            game_id=game_id,
            game=game,
            state=state,
            players=players,
            options=options,
            seed=seed,
            bots=dict(args.bots),
            token_hashes={s: tokens.token_hash(t) for s, t in seat_tokens.items()},
            clock_ms=control.decision_ms if control else 0,
            created_events=[created.to_json()],
            bot_wait_ms=self.bots.wait_ms(args.bots, state.to_act()),
            owner=args.owner,
            bot_key=secrets.token_hex(32),
            time_control=control.to_json() if control else None,
            reserves=dict.fromkeys(range(players), control.reserve_ms) if control and control.reserve_ms else {},
            rated=args.rated,
            seat_players=_seat_players(args, players),
        )
        return _NewGame(record, seat_tokens)

    def _time_control(self, args: CreateArgs) -> TimeControl | None:
        """The game's time control: `time_control`, or the `turn_seconds` shorthand (never both)."""
        if args.time_control is None:
            return TimeControl.from_turn_seconds(args.turn_seconds)
        if args.turn_seconds:
            raise errors.invalid("give either turn_seconds or time_control, not both")
        try:
            return TimeControl.parse(args.time_control, self.max_turn_seconds)
        except ValueError as exc:
            raise errors.invalid(str(exc)) from None

    async def _store_new(self, games: list[_NewGame]) -> None:
        """Write prepared games with one script (atomic), then settle each (its first bot moves)."""
        metas = await self.lookup.store.create_many([g.record for g in games])
        for meta, g in zip(metas, games):
            await self.pipeline.settle(meta, 0, g.record.state)


def _seat_players(args: CreateArgs, players: int) -> dict[int, str]:
    """The validated seat -> player map: human seats of this game, player ids as owners are written."""
    for seat, player in args.seat_players.items():
        if not 0 <= seat < players or seat in args.bots:
            raise errors.invalid(f"seat_players: {seat} is not a human seat of this {players}-player game")
        if not OWNER_RE.match(player):
            raise errors.invalid("seat_players: a player id is 1-64 characters of A-Z a-z 0-9 _ -")
    return dict(args.seat_players)
