"""The game-agnostic game-state logic behind the gRPC API.

It only calls the engine contract (new/from_json/action_from_json, to_act,
legal_actions, apply, view, scores, winners, default_action, Event). Every
refusal raises a ServiceError before anything is written; every change goes
through `Store.commit` (compare-and-set on the version).
"""

from __future__ import annotations

import asyncio
import logging
import re
import secrets
import time
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

import engine
from engine.core import Event, Game, IllegalAction, State
from services import boundedjson, standings
from services.gamestate import errors, metrics, tokens
from services.gamestate.archive_reads import ArchivedReads
from services.gamestate.bots import Dispatcher, bot_levels, human_waiting, level_budget_seconds
from services.gamestate.clocks import TimeControl, spend_reserve
from services.gamestate.endings import (
    Endings,
    Seats,
    count_timeout,
    forfeit_events,
    hand_over,
    timeouts_field,
    zombie_level,
)
from services.gamestate.fanout import Entry, GameFanout, Read
from services.gamestate.quotas import QuotaBook
from services.gamestate.records import Commit, Creation, Meta
from services.gamestate.store import Store, fingerprint, now_ms

log = logging.getLogger(__name__)

GAME_ID_RE = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
OWNER_RE = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
IDEM_RE = re.compile(r"^[\x21-\x7e]{1,200}$")
MAX_ACTION_BYTES = 64 * 1024
MAX_SEED = 2**63 - 1


class Registry:
    """Which games exist: the engine registry by default (tests may add games)."""

    def __init__(self, extra: dict[str, Game] | None = None):
        self._extra = dict(extra or {})

    def names(self) -> list[str]:
        return sorted({*engine.games(), *self._extra})

    def get(self, name: str) -> Game:
        if name in self._extra:
            return self._extra[name]
        return engine.get(name)


#: Entries one catching-up read of a watcher takes at once.
CATCH_UP = 100

#: Most games one CreateGames call may create (more is refused: one call must stay one bounded Redis script).
MAX_BATCH = 256

#: Games prepared between two yields to the event loop while a batch is built.
YIELD_EVERY = 16

#: (game_id, [(seat, token or "", bot level or "")], version) of a created game.
Created = tuple[str, list[tuple[int, str, str]], int]


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


@dataclass(slots=True)
class ViewData:
    meta: Meta
    version: int
    state: State
    seat: int | None


@dataclass(slots=True)
class SubmitResult:
    version: int
    events: list[dict[str, Any]]
    status: str
    to_act: list[int]
    replayed: bool


@dataclass(slots=True)
class StreamItem:
    version: int
    kind: str
    actor: int | None
    events: list[dict[str, Any]]
    status: str
    to_act: list[int]
    scores: list[int]
    winners: list[int]


def redact(events: list[dict[str, Any]], seat: int | None) -> list[dict[str, Any]]:
    """The stored event JSONs `seat` may see (None = spectator), as engine.redact_events does."""
    return [e for e in events if "visible_to" not in e or (seat is not None and seat in e["visible_to"])]


def _json_object(text: str, what: str) -> Any:
    """`text` parsed within services.boundedjson's limits (size, depth, 64-bit integers, no lone surrogates,
    no NaN): anything else is INVALID_ARGUMENT, never a RecursionError turned INTERNAL."""
    try:
        return boundedjson.loads(text, max_bytes=MAX_ACTION_BYTES)
    except boundedjson.JsonRefused as exc:
        raise errors.invalid(f"{what}: {exc.message}") from None


class _Counted:
    """Counts one submission in skyboard_actions_total by game and outcome (accepted, replayed, the refusal's
    reason, or internal_error), whatever happens inside the `with`."""

    def __init__(self) -> None:
        self.game = "-"
        self.outcome = "internal_error"

    def __enter__(self) -> _Counted:
        return self

    def __exit__(self, _type: object, exc: BaseException | None, _tb: object) -> None:
        if isinstance(exc, errors.ServiceError):
            self.outcome = exc.reason
        metrics.ACTIONS.labels(self.game, self.outcome).inc()

    def done(self, result: SubmitResult) -> SubmitResult:
        self.outcome = "replayed" if result.replayed else "accepted"
        return result


class GameStateService(Endings):
    """Authoritative games in Redis. Any number of instances may share one Redis."""

    def __init__(
        self,
        store: Store,
        registry: Registry,
        dispatcher: Dispatcher,
        *,
        quotas: QuotaBook | None = None,
        allow_anonymous_create: bool = False,
        max_turn_seconds: float = 86_400.0,
        watch_block_ms: int = 1000,
        heartbeat_s: float = 15.0,
        bot_redispatch_s: float = 15.0,
        token_check_ms: int = 500,
        zombie_bot_level: str = "greedy",
        abandon_after_timeouts: int = 3,
        inactive_game_days: float = 0.0,
    ):
        self.store = store
        self.registry = registry
        self.dispatcher = dispatcher
        self.quotas = quotas
        self.allow_anonymous_create = allow_anonymous_create
        self.max_turn_seconds = max_turn_seconds
        self.watch_block_ms = watch_block_ms
        self.heartbeat_s = heartbeat_s
        self.bot_redispatch_s = bot_redispatch_s
        #: a seat's stream re-checks its token at least this often (a revoked token's stream ends within it)
        self.token_check_ms = token_check_ms
        if zombie_bot_level and zombie_bot_level not in bot_levels():
            raise ValueError(f"ZOMBIE_BOT_LEVEL {zombie_bot_level!r} is not a bot level: {', '.join(bot_levels())}")
        #: who plays resigned and abandoned seats ("" = the engine's default decision)
        self.zombie_bot_level = zombie_bot_level
        #: consecutive timeouts after which a human seat is abandoned (0 = never)
        self.abandon_after_timeouts = abandon_after_timeouts
        #: an active game with no commit for this long ends (0 = never): see Endings.sweep_inactive
        self.inactive_game_ms = round(inactive_game_days * 86_400_000)
        self.stopping = asyncio.Event()
        #: game id -> game name of recently seen games (metric labels only)
        self.game_names: dict[str, str] = {}
        #: the SQL archive, where finished games go once they leave Redis (None: no archive configured)
        self.archive: ArchivedReads | None = None
        #: one Redis reader per watched game feeds all its watchers here; it reads at least every token check
        self.fanout = GameFanout(store, min(watch_block_ms, token_check_ms), self.stopping)

    # ------------------------------------------------------------------ helpers

    def _game(self, name: str) -> Game:
        try:
            return self.registry.get(name)
        except KeyError:
            raise errors.invalid(f"unknown game {name!r}; known games: {', '.join(self.registry.names())}") from None

    async def _meta(self, game_id: str) -> Meta:
        if not isinstance(game_id, str) or not GAME_ID_RE.match(game_id):
            raise errors.invalid("game_id must be 1-64 characters of A-Z a-z 0-9 _ -")
        meta = await self.store.meta(game_id)
        if meta is None and self.archive is not None:  # not in Redis: an archived game, perhaps
            meta = await self.archive.meta(game_id)
        if meta is None:
            raise errors.not_found(game_id)
        self._name(meta)
        return meta

    def _name(self, meta: Meta) -> None:
        if len(self.game_names) > 10_000:
            self.game_names.clear()
        self.game_names[meta.game_id] = meta.game

    async def _seat(self, meta: Meta, token: str, *, required: bool) -> int | None:
        """The seat `token` speaks for in this game; None for a spectator (if allowed)."""
        if token and self._tokens_expired(meta):
            raise errors.unauthenticated(
                "seat tokens of this game expired SEAT_TOKEN_TTL_AFTER_END_S "
                f"({self.store.token_ttl_after_end_ms / 1000:g} s) after it ended; read it without a token"
            )
        if not token:
            if required:
                raise errors.unauthenticated("a seat token is required")
            return None
        if token.startswith(tokens.RETIRED_BOT_PREFIX):
            raise errors.unauthenticated("bot seats take no token: the platform's workers play them")
        h = tokens.token_hash(token)
        for seat, stored in meta.token_hashes.items():
            if secrets.compare_digest(stored, h):
                return seat
        owner = await self.store.token_owner(h)
        if owner is not None and owner[0] != meta.game_id:
            raise errors.denied("this token belongs to another game")
        raise errors.unauthenticated("unknown or revoked seat token")

    def _tokens_expired(self, meta: Meta) -> bool:
        """Whether a finished game's seat tokens have expired (its last commit, which finished it, is its end).
        Decided from the metadata alone, so every instance agrees; the token index expires by itself."""
        return meta.ended and now_ms() >= meta.updated_ms + self.store.token_ttl_after_end_ms

    async def _state(self, meta: Meta) -> tuple[int, State]:
        if not meta.archived:
            try:
                return await self.store.load(meta.game_id, meta)
            except LookupError:
                pass  # archived since its metadata was read, perhaps
        found = await self.archive.state(meta.game_id) if self.archive is not None else None
        if found is None:
            raise errors.not_found(meta.game_id)
        return found

    # ------------------------------------------------------------------ catalog and creation

    def catalog(self) -> tuple[list[dict[str, Any]], tuple[str, ...]]:
        return [self.registry.get(n).describe() for n in self.registry.names()], bot_levels()

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
        """Count an owned game against its owner's quotas (RESOURCE_EXHAUSTED when one is reached)."""
        record = new.record
        if record.owner and self.quotas is not None:
            await self.quotas.reserve(record.owner, record.game_id, len(record.bots))

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
        game = self._game(args.game)
        if args.owner and not OWNER_RE.match(args.owner):
            raise errors.invalid("owner must be 1-64 characters of A-Z a-z 0-9 _ -")
        options = _json_object(args.options_json, "options_json") if args.options_json else {}
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
        seat_tokens = {s: tokens.new_token() for s in range(players) if s not in args.bots}
        created = Event("game_created", {"game": game.name, "players": players, "options": options})
        record = Creation(
            game_id=secrets.token_urlsafe(12),
            game=game,
            state=state,
            players=players,
            options=options,
            seed=seed,
            bots=dict(args.bots),
            token_hashes={s: tokens.token_hash(t) for s, t in seat_tokens.items()},
            clock_ms=control.decision_ms if control else 0,
            created_events=[created.to_json()],
            bot_wait_ms=self._bot_wait_ms(args.bots, state.to_act()),
            owner=args.owner,
            bot_key=secrets.token_hex(32),
            time_control=control.to_json() if control else None,
            reserves=dict.fromkeys(range(players), control.reserve_ms) if control and control.reserve_ms else {},
            rated=args.rated,
            seat_players=self._seat_players(args, players),
        )
        return _NewGame(record, seat_tokens)

    @staticmethod
    def _seat_players(args: CreateArgs, players: int) -> dict[int, str]:
        """The validated seat -> player map: human seats of this game, player ids as owners are written."""
        for seat, player in args.seat_players.items():
            if not 0 <= seat < players or seat in args.bots:
                raise errors.invalid(f"seat_players: {seat} is not a human seat of this {players}-player game")
            if not OWNER_RE.match(player):
                raise errors.invalid("seat_players: a player id is 1-64 characters of A-Z a-z 0-9 _ -")
        return dict(args.seat_players)

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
        """Write prepared games with one script (atomic), then queue their first bot moves."""
        metas = await self.store.create_many([g.record for g in games])
        for meta, g in zip(metas, games):
            await self._after_commit(meta, 0, g.record.state)

    # ------------------------------------------------------------------ reads

    async def get_game(self, game_id: str, token: str) -> ViewData:
        meta = await self._meta(game_id)
        seat = await self._seat(meta, token, required=False)
        version, state = await self._state(meta)
        return ViewData(meta=meta, version=version, state=state, seat=seat)

    async def legal_actions(self, game_id: str, token: str) -> tuple[int, int, list[dict[str, Any]]]:
        meta = await self._meta(game_id)
        seat = await self._seat(meta, token, required=True)
        version, state = await self._state(meta)
        if meta.ended:  # finished (perhaps by forfeit, before the engine's end) or aborted: nothing is legal
            return version, seat, []
        return version, seat, [a.to_json() for a in state.legal_actions(seat)]

    # ------------------------------------------------------------------ actions

    async def submit(
        self, game_id: str, token: str, action_json: str, expected_version: int, idem_key: str
    ) -> SubmitResult:
        with _Counted() as counted:
            result, counted.game = await self._submit_on_cache(game_id, token, action_json, expected_version, idem_key)
            if result is None:
                meta = await self._meta(game_id)
                counted.game = meta.game
                result = await self._submit(meta, token, action_json, expected_version, idem_key)
            return counted.done(result)

    async def _submit_on_cache(
        self, game_id: str, token: str, action_json: str, expected_version: int, idem_key: str
    ) -> tuple[SubmitResult | None, str]:
        """The common move (a seat token, no idempotency key, at the version this instance last saw) decided
        on the cached metadata and state without reading Redis first: the commit re-checks the version and
        the seat's token hash atomically. (None, "-") whenever anything is off, refusals included: the
        full path then decides afresh, so every answer is the one it would have given."""
        if idem_key or not token:
            return None, "-"
        meta = self.store.cached_meta(game_id)
        if meta is None or meta.version != expected_version:
            return None, "-"
        h = tokens.token_hash(token)
        seat = next((s for s, stored in meta.token_hashes.items() if secrets.compare_digest(stored, h)), None)
        if seat is None or seat in meta.bots:
            return None, "-"
        self._name(meta)
        try:
            result = await self._apply(meta, seat, action_json, expected_version, "", "", token_hash=h)
        except errors.ServiceError:
            return None, "-"
        return result, meta.game

    async def submit_bot(
        self, game_id: str, seat: int, action_json: str, expected_version: int, idem_key: str
    ) -> SubmitResult:
        """A bot seat's move (GameAdmin, the workers' path): the caller proved the service credential, and the
        seat must be one the platform plays (a bot seat, including a resigned seat handed to a bot)."""
        with _Counted() as counted:
            meta = await self._meta(game_id)
            counted.game = meta.game
            if seat not in meta.bots:
                raise errors.denied(f"seat {seat} is not a bot seat of this game")
            return counted.done(await self._submit_as(meta, seat, action_json, expected_version, idem_key))

    async def _submit(
        self, meta: Meta, token: str, action_json: str, expected_version: int, idem_key: str
    ) -> SubmitResult:
        seat = await self._seat(meta, token, required=True)
        if seat in meta.bots:  # handed to the zombie bot a moment ago; its token is being revoked
            raise errors.unauthenticated("this seat was resigned or abandoned: a bot plays it now")
        return await self._submit_as(meta, seat, action_json, expected_version, idem_key)

    async def _submit_as(
        self, meta: Meta, seat: int, action_json: str, expected_version: int, idem_key: str
    ) -> SubmitResult:
        if idem_key and not IDEM_RE.match(idem_key):
            raise errors.invalid("idempotency_key must be 1-200 printable ASCII characters without spaces")
        print_ = fingerprint(action_json, expected_version) if idem_key else ""  # only keys are bound to it
        if idem_key:
            first = await self.store.idempotent(meta.game_id, seat, idem_key)
            if first is not None:
                return self._replay(first, print_)
        try:
            return await self._apply(meta, seat, action_json, expected_version, idem_key, print_)
        except errors.ServiceError as exc:
            if exc.reason == "stale_version" and idem_key:
                # A racing twin with the same key may have committed in between: replay it.
                first = await self.store.idempotent(meta.game_id, seat, idem_key)
                if first is not None:
                    return self._replay(first, print_)
            raise

    async def _apply(
        self,
        meta: Meta,
        seat: int,
        action_json: str,
        expected_version: int,
        idem_key: str,
        print_: str,
        token_hash: str | None = None,
    ) -> SubmitResult:
        """Apply and commit; with `token_hash` (a move decided on cached metadata) the commit also checks
        that hash is still the seat's, and any refusal is a ServiceError for the caller to retry afresh."""
        obj = _json_object(action_json, "action_json")
        game = self._game(meta.game)
        try:
            action = game.action_from_json(obj)
        except (ValueError, TypeError) as exc:
            raise errors.invalid(f"malformed action: {exc}", "malformed_action") from None
        if expected_version != meta.version:
            raise errors.stale(expected_version, meta.version)
        if meta.status == "aborted":
            raise errors.precondition("the game was aborted", "game_over")
        if meta.status == "finished":
            raise errors.precondition("the game is over", "game_over")
        version, state = await self._state(meta)
        if version != expected_version:
            raise errors.stale(expected_version, version)
        new = state.clone()
        try:
            events = new.apply(seat, action)
        except IllegalAction as exc:
            raise errors.illegal(exc.message, exc.rule) from None
        event_json = [e.to_json() for e in events]
        mine = redact(event_json, seat)
        at = now_ms()
        extra = {}
        if meta.timeouts.get(seat):  # a decision of its own ends a run of timeouts
            extra["timeouts"] = timeouts_field({s: n for s, n in meta.timeouts.items() if s != seat})
        commit = Commit.move(
            expected_version, new, seat, action.to_json(), event_json, meta.clock_ms,
            _running(meta.deadlines, state.to_act(), seat),
            idem_key=idem_key or None,
            idem_value={"fingerprint": print_, "events": mine, "status": _status(new), "to_act": new.to_act()},
            token_check=(seat, token_hash) if token_hash else None,
            bot_wait_ms=self._bot_wait_ms(meta.bots, new.to_act()),
            extra_meta=extra,
            reserves=spend_reserve(meta.reserves, meta.deadlines, seat, at) if meta.reserves else {},
            at_ms=at,
            forfeited=meta.forfeited,
        )
        result = await self.store.commit(meta.game_id, commit)
        if result.status == "token":
            raise errors.unauthenticated("unknown or revoked seat token")
        if result.status == "dup":
            return self._replay(result.duplicate or {}, print_)
        if result.status == "stale":
            raise errors.stale(expected_version, result.version or 0)
        if result.status != "ok":
            raise errors.not_found(meta.game_id)
        # a bot's own move (SubmitBotAction; a human's seat is never in bots) leaves follow-ups (bot_policy)
        await self._after_commit(meta, result.version or 0, new, result.deadlines, follow_up=seat in meta.bots)
        return SubmitResult(result.version or 0, mine, _status(new), new.to_act(), replayed=False)

    @staticmethod
    def _replay(first: dict[str, Any], print_: str) -> SubmitResult:
        if first.get("fingerprint") != print_:
            raise errors.invalid("idempotency_key was already used for a different request", "idempotency_mismatch")
        return SubmitResult(first["version"], first["events"], first["status"], first["to_act"], replayed=True)

    async def _after_commit(
        self, meta: Meta, version: int, state: State, deadlines: dict[int, int] | None = None, *,
        follow_up: bool = False,
    ) -> None:
        """Play the default decisions of handed-over seats no bot plays, then queue bot moves. Never raises.

        `meta` is the metadata the caller's commit was checked against, with the seats that commit handed over:
        its bots, resigned and abandoned seats are current, since changing them is itself a versioned commit.
        `follow_up`: the caller's commit decided for a seat no human plays (a bot's move, the turn clock's default
        for a bot seat), so the bot moves it leaves are follow-ups (services/bot_policy.py); so are those left by
        an auto-play here. False: a human's move, resignation or timeout, a creation.
        """
        if not state.is_over() and standings.ends_by_forfeit(meta.players, meta.forfeited):
            return  # the commit finished the game by forfeit: nobody plays on
        try:
            deadlines = meta.deadlines if deadlines is None else deadlines
            handed = {*meta.resigned, *meta.abandoned} - set(meta.bots)
            reserves = meta.reserves
            if handed and any(s in handed for s in state.to_act()) and not state.is_over():
                fresh = await self.store.meta(meta.game_id)  # the reserves the caller's commit left
                if fresh is None or fresh.version != version:
                    return  # someone else moved the game on; they handle what follows
                reserves = fresh.reserves
            while not state.is_over():
                auto = [s for s in state.to_act() if s in handed]
                if not auto:
                    break
                seat = auto[0]
                new = state.clone()
                action = new.default_action(seat)
                events = [e.to_json() for e in new.apply(seat, action)]
                events.append(Event("seat_auto_played", {"seat": seat}).to_json())
                keep = _running(deadlines, state.to_act(), seat)
                result = await self.store.commit(
                    meta.game_id,
                    Commit.auto(
                        version, new, seat, action.to_json(), events, meta.clock_ms, keep,
                        bot_wait_ms=self._bot_wait_ms(meta.bots, new.to_act()), reserves=reserves,
                        forfeited=meta.forfeited,
                    ),
                )
                if result.status != "ok":
                    return  # someone else moved the game on; they handle what follows
                version, state, deadlines = result.version or 0, new, result.deadlines
                follow_up = True  # the platform decided for a handed-over seat: what follows is a follow-up
            await self._dispatch_bots(meta, version, state.to_act(), follow_up)
        except Exception:
            log.exception("post-commit work failed for game %s", meta.game_id)

    def _bot_wait_ms(self, bots: dict[int, str], to_act: list[int]) -> int | None:
        """How long a game may wait on its bot seats before their move is re-queued: the slowest waiting
        level's think budget plus BOT_REDISPATCH_S (None: no bot seat must act, or re-dispatch is off).
        Commits arm this timer atomically with the new state, so no crash between a commit and queueing
        the bot move can leave a game waiting on a bot with nothing to wake it."""
        waiting = [s for s in to_act if s in bots]
        if not waiting or self.bot_redispatch_s <= 0:
            return None
        think_s = max(level_budget_seconds(bots[s]) for s in waiting)
        return round((think_s + self.bot_redispatch_s) * 1000)

    async def _dispatch_bots(self, meta: Meta, version: int, to_act: list[int], follow_up: bool = False) -> None:
        """Queue a bot_move for each bot seat in to_act (the commit that left them to act armed the timer), in the
        tier of services/bot_policy.py: a human waiting on it or not, after a bot's or the platform's commit
        (`follow_up`) or not."""
        human = human_waiting(meta.players, meta.bots, meta.resigned)
        for seat in (s for s in to_act if s in meta.bots):
            try:
                await self.dispatcher.dispatch(meta.game_id, seat, version, human, follow_up)
                metrics.BOT_DISPATCH.labels("queued").inc()
            except Exception:
                metrics.BOT_DISPATCH.labels("failed").inc()
                log.exception("could not queue a bot move for %s seat %s", meta.game_id, seat)

    async def redispatch_stalled_bots(self) -> int:
        """Re-queue bot_move for games still waiting on a bot for its level's think budget plus
        BOT_REDISPATCH_S (a lost task or a worker killed mid-thought never stalls a game). Each due entry
        is claimed by one instance, which moves it one period on rather than removing it (an instance
        killed after its claim leaves the timer), and a duplicate task is harmless (stale versions exit,
        idempotency keys replay). A re-dispatch is queued as a first decision whatever tier the stalled task had
        (services/bot_policy.py): nothing records it, a task still queued keeps its own place, and a lost one's
        replacement still goes ahead of every bot-only game's."""
        sent = 0
        now = now_ms()
        for game_id in await self.store.due_bot_waits(now):
            next_due = now + round(self.bot_redispatch_s * 1000)
            if not await self.store.claim_bot_wait(game_id, now, next_due):
                continue  # another instance took it
            meta = await self.store.meta(game_id)
            wait_ms = self._bot_wait_ms(meta.bots, meta.to_act) if meta and meta.status == "active" else None
            if wait_ms is None:
                await self.store.release_bot_wait(game_id, next_due)
                continue
            await self.store.arm_bot_wait(game_id, now + wait_ms)  # the waiting level's budget + margin
            metrics.BOT_DISPATCH.labels("redispatched").inc()
            await self._dispatch_bots(meta, meta.version, meta.to_act)
            sent += 1
        return sent

    # ------------------------------------------------------------------ seats

    async def resign(self, game_id: str, token: str, bot_level: str) -> int:
        """Resign the token's seat: the zombie bot (ZOMBIE_BOT_LEVEL) plays it from now on. Only an unrated game
        lets the client name another level (`bot_level`); the player ranks last if the game is rated."""
        meta = await self._meta(game_id)
        seat = await self._seat(meta, token, required=True)
        if bot_level and meta.rated:
            raise errors.invalid(
                f"a rated game's resigned seat is played by the zombie level ({self.zombie_bot_level or 'default'}); "
                "leave bot_level empty", "bot_level_not_allowed")
        if bot_level and bot_level not in bot_levels():
            raise errors.invalid(f"unknown bot level {bot_level!r}; known: {', '.join(bot_levels())}")
        if seat in meta.bots:
            raise errors.unauthenticated("this seat was resigned or abandoned: a bot plays it now")
        level = bot_level or self.zombie_bot_level
        for _attempt in range(5):  # a resignation does not depend on the position: retry a lost race
            if meta.ended:
                raise errors.precondition("the game is over", "game_over")
            version = await self._resign_once(meta, seat, level)
            if version is not None:
                return version
            meta = await self._meta(game_id)
        raise errors.stale(meta.version, meta.version)

    async def _resign_once(self, meta: Meta, seat: int, bot_level: str) -> int | None:
        """One compare-and-set attempt at resigning; None if the game moved on meanwhile."""
        game_id = meta.game_id
        version, state = await self._state(meta)
        if version != meta.version:
            return None  # resigned/bots below must come from the metadata of the version we commit on
        bot_level = zombie_level(meta.players, {*meta.forfeited, seat}, bot_level)
        seats = hand_over(meta, seat, bot_level, "resigned")
        events = [Event("seat_resigned", {"seat": seat, "bot": bot_level or None}).to_json(),
                  *forfeit_events(meta.players, seats.forfeited, "resigned")]
        result = await self.store.commit(
            game_id,
            Commit.resign(
                version, state, seat, events, meta.clock_ms, _running(meta.deadlines, state.to_act(), -1),
                extra_meta={**seats.fields(),
                            "timeouts": timeouts_field({s: n for s, n in meta.timeouts.items() if s != seat})},
                bot_wait_ms=self._bot_wait_ms(seats.bots, state.to_act()),
                reserves=meta.reserves,
                forfeited=seats.forfeited,
            ),
        )
        if result.status == "stale":
            return None
        if result.status != "ok":
            raise errors.not_found(game_id)
        await self.store.revoke_seat_token(game_id, seat)
        metrics.ENDINGS.labels(meta.game, "resigned").inc()
        meta = await self._meta(game_id)
        await self._after_commit(meta, result.version or 0, state)
        return result.version or 0

    async def rotate_token(self, game_id: str, token: str) -> tuple[int, str]:
        meta = await self._meta(game_id)
        seat = await self._seat(meta, token, required=True)
        if seat in meta.bots:
            raise errors.invalid("this seat is played by a bot; it has no token to rotate")
        new = tokens.new_token()
        if not await self.store.set_token(game_id, seat, tokens.token_hash(token), tokens.token_hash(new)):
            raise errors.unauthenticated("unknown or revoked seat token")
        return seat, new

    # ------------------------------------------------------------------ streams, lists, log

    async def watch(
        self,
        game_id: str,
        token: str,
        after_version: int | None,
        gone: Callable[[], bool] = lambda: False,
        on_gone: Callable[[Callable[[], None]], None] | None = None,
    ) -> AsyncIterator[StreamItem]:
        """Redacted stream entries after `after_version` (all from creation if None), in order.

        `gone()` tells whether the watcher has disconnected, and `on_gone(wake)` (if given) registers a call
        made the moment it does, so a closed stream leaves its game's reader at once. A stream opened with a
        human seat token ends with UNAUTHENTICATED once that token is revoked (RotateToken, Resign): see `_watch`.
        """
        async with self.fanout.own_reads:
            meta = await self._meta(game_id)
            seat = await self._seat(meta, token, required=False)
        if after_version is not None and after_version < 0:
            raise errors.invalid("after_version must be >= 0")
        if meta.ended and after_version is not None and after_version >= meta.version:
            return _empty()  # nothing after the end: the stream ends at once
        if meta.archived:
            return _archived_end(meta)  # its event stream left with Redis: the final state alone
        # a seat token is watched by the hash it resolved by (spectators have none)
        watched = tokens.token_hash(token) if seat is not None else None
        return self._watch(meta, seat, after_version, gone, watched, on_gone)

    async def _watch(
        self,
        meta: Meta,
        seat: int | None,
        after_version: int | None,
        gone: Callable[[], bool],
        token_hash: str | None = None,
        on_gone: Callable[[Callable[[], None]], None] | None = None,
    ) -> AsyncIterator[StreamItem]:
        """The stream loop, fed by the game's shared reader (`self.fanout`, services/gamestate/fanout.py).

        It first catches up on its own (XRANGE, no waiting) and again whenever it finds a gap (it fell behind).
        Every read, shared or its own, comes with the seats' token hashes read after its entries; with
        `token_hash` (a human seat's watcher) the stream ends with UNAUTHENTICATED as soon as its seat's hash is
        no longer `token_hash`, before it is given that read's entries: so no entry written after the revocation
        (e.g. the seat's auto-played secrets after Resign) reaches it. Reads come at least every
        min(watch_block_ms, token_check_ms)."""
        game_id, players = meta.game_id, meta.players
        done = -1 if after_version is None else after_version  # the last version this watcher has
        version, status, to_act = after_version or 0, "active", []
        last_sent = time.monotonic()
        sub = await self.fanout.subscribe(game_id, players)
        metrics.WATCHERS.inc()
        if on_gone is not None:
            on_gone(sub.wake)
        behind = True  # catch up from Redis first: the shared reader only follows new entries
        try:
            while not self.stopping.is_set():
                if gone():
                    return
                if sub.error is not None:
                    raise sub.error
                if behind or sub.behind:
                    sub.behind = False
                    async with self.fanout.own_reads:
                        entries, hashes = await self.store.range_events_tokens(
                            game_id, players, f"{done}-1" if done >= 0 else "0-0", CATCH_UP)
                    read = Read(tuple(Entry.parse(eid, f) for eid, f in entries), hashes)
                    behind = len(entries) == CATCH_UP
                elif sub.ended:
                    raise errors.unavailable("the service is shutting down; resume with after_version")
                else:
                    try:
                        queued = await asyncio.wait_for(sub.queue.get(), self.fanout.block_ms / 1000 + 1.0)
                    except TimeoutError:  # the reader is slow (Redis is): read for ourselves meanwhile
                        behind = True
                        continue
                    if queued is None:  # only a wake-up: look at gone(), the reader's end
                        continue
                    read = queued
                if token_hash is not None and seat is not None:
                    current = read.tokens.get(seat)
                    if current is None or not secrets.compare_digest(current, token_hash):
                        raise errors.unauthenticated("seat token revoked")
                sent = False
                for entry in read.entries:
                    if entry.version <= done:
                        continue  # already sent (caught up past this shared read)
                    if entry.version != done + 1:
                        behind = True  # a gap: read the missing entries ourselves
                        break
                    done = entry.version
                    yield StreamItem(entry.version, entry.kind, entry.actor, redact(entry.events, seat),
                                     entry.status, entry.to_act, entry.scores, entry.winners)
                    version, status, to_act, last_sent, sent = entry.version, entry.status, entry.to_act, \
                        time.monotonic(), True
                    if entry.status != "active":  # finished or aborted: nothing follows
                        return
                if not sent and time.monotonic() - last_sent >= self.heartbeat_s:
                    # Idle: a heartbeat keeps proxies open and is how a vanished watcher is noticed
                    # (writing to a cancelled stream ends this handler).
                    yield StreamItem(version, "heartbeat", None, [], status, to_act, [], [])
                    last_sent = time.monotonic()
            raise errors.unavailable("the service is shutting down; resume with after_version")
        finally:
            self.fanout.unsubscribe(sub)
            metrics.WATCHERS.dec()

    async def list_games(self, status: str, game: str, limit: int) -> list[Meta]:
        if status not in ("", "active", "finished", "aborted"):
            raise errors.invalid("status must be '', 'active', 'finished' or 'aborted'")
        if game:
            self._game(game)
        if limit < 0 or limit > 500:
            raise errors.invalid("limit must be between 0 and 500")
        found = await self.store.list_games(status, game, limit or 50)
        if self.archive is not None and status in ("", "finished"):
            found = _merge_newest(found, await self.archive.recent(game, limit or 50), limit or 50)
        return found

    async def get_log(self, game_id: str) -> tuple[Meta, list[dict[str, Any]]]:
        meta = await self._meta(game_id)
        if not meta.ended:
            raise errors.precondition("the log of a game is published once it has ended", "game_active")
        entries = [] if meta.archived else await self.store.log(game_id)
        if len(entries) != meta.version and self.archive is not None:  # archived (even while being read)
            entries = await self.archive.log(game_id) or entries
        return meta, entries

    # ------------------------------------------------------------------ turn clock

    async def sweep_once(self) -> int:
        """Apply the default decision for every seat whose turn clock expired; returns how many.

        Safe with any number of instances: each default goes through the
        compare-and-set at the expired version, so only one instance applies it.
        """
        applied = 0
        for game_id in await self.store.due_clocks(now_ms()):
            try:
                applied += await self._expire(game_id)
            except Exception:
                log.exception("turn clock sweep failed for game %s", game_id)
        return applied

    async def _expire(self, game_id: str) -> int:
        meta = await self.store.meta(game_id)
        now = now_ms()
        if meta is None or meta.status != "active" or not meta.deadline_ms or meta.deadline_ms > now:
            return 0
        version, state = await self.store.load(game_id, meta)
        if version != meta.version:
            return 0
        deadlines, applied = meta.deadlines, 0
        reserves, timeouts, seats = meta.reserves, meta.timeouts, Seats.of(meta)
        abandoned: list[int] = []
        bot_timed_out = False  # the last default applied was a bot seat's: the bot moves it leaves are follow-ups
        for seat in sorted(s for s, due in meta.deadlines.items() if due <= now):
            if seat not in state.to_act() or deadlines.get(seat, now + 1) > now:
                continue
            new = state.clone()
            action = new.default_action(seat)
            events = [Event("timeout", {"seat": seat}).to_json()]
            events += [e.to_json() for e in new.apply(seat, action)]
            keep = _running(deadlines, state.to_act(), seat)
            after = seats
            counts, abandon, extra = timeouts, False, {}
            if seat in meta.playing_humans() and seat not in seats.abandoned:  # bots never abandon
                counts, abandon = count_timeout(timeouts, seat, self.abandon_after_timeouts)
                extra["timeouts"] = timeouts_field(counts)
                if abandon:
                    level = zombie_level(meta.players, {*seats.forfeited, seat}, self.zombie_bot_level)
                    after = seats.hand_over(seat, level, "abandoned")
                    extra.update(after.fields())
                    events.append(Event("seat_abandoned", {
                        "seat": seat, "bot": level or None, "reason": "timeouts",
                        "timeouts": self.abandon_after_timeouts}).to_json())
                    events += forfeit_events(meta.players, after.forfeited, "abandoned")
            spent = spend_reserve(reserves, deadlines, seat, now) if reserves else {}
            result = await self.store.commit(
                game_id,
                Commit.timeout(
                    version, new, seat, action.to_json(), events, meta.clock_ms, keep,
                    bot_wait_ms=self._bot_wait_ms(after.bots, new.to_act()), extra_meta=extra,
                    reserves=spent, at_ms=now, forfeited=after.forfeited,
                ),
            )
            if result.status != "ok":
                break  # another instance (or a player) got there first
            metrics.TIMEOUTS.labels(meta.game).inc()
            applied += 1
            version, state, deadlines = result.version or 0, new, result.deadlines
            reserves, timeouts, seats = spent, counts, after
            bot_timed_out = seat in meta.bots
            if abandon:
                abandoned.append(seat)
            if result.ended:  # the engine's end, or the last rival abandoned (services/standings.py)
                break
        for seat in abandoned:
            await self.store.revoke_seat_token(game_id, seat)
            metrics.ENDINGS.labels(meta.game, "abandoned").inc()
        if applied:
            await self._after_commit(seats.apply_to(meta), version, state, deadlines, follow_up=bot_timed_out)
        return applied


async def _empty() -> AsyncIterator[StreamItem]:
    return
    yield  # an async generator that yields nothing


async def _archived_end(meta: Meta) -> AsyncIterator[StreamItem]:
    """The stream of an archived game: one entry with its final state (its events were not archived)."""
    yield StreamItem(meta.version, "archived", None, [], meta.status, [], meta.scores, meta.winners)


def _merge_newest(hot: list[Meta], archived: list[Meta], limit: int) -> list[Meta]:
    """Redis's games and the archive's, newest created first, each game once (Redis's copy if both)."""
    seen = {m.game_id for m in hot}
    merged = hot + [m for m in archived if m.game_id not in seen]
    merged.sort(key=lambda m: m.created_ms, reverse=True)
    return merged[:limit]


def _running(deadlines: dict[int, int], before_to_act: list[int], actor: int) -> dict[int, int]:
    """The deadlines that run on after `actor` decided: every other seat that was already deciding."""
    return {s: d for s, d in deadlines.items() if s != actor and s in before_to_act}


def _status(state: State) -> str:
    return "finished" if state.is_over() else "active"

