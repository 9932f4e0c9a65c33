"""Moves: a seat's own decision (SubmitAction with its token, SubmitBotAction for the platform's bots), validated
and applied here, then committed through the pipeline (services/gamestate/pipeline.py); and a seat taking its own
decision(s) back (TakeBack, services/gamestate/takeback.py), which is keyed and version-checked the same way.

Why apart: a move is the one change with idempotency keys, a fast path on cached metadata and a per-outcome
metric; the other kinds of change share none of that."""

from __future__ import annotations

import re
import secrets
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from engine.core import IllegalAction
from services.gamestate import errors, metrics, takeback, tokens
from services.gamestate.bot_dispatch import BotDispatch
from services.gamestate.clocks import spend_reserve
from services.gamestate.endings import timeouts_field
from services.gamestate.lookup import Lookup, json_argument, seat_over
from services.gamestate.pipeline import Pipeline, running_deadlines
from services.gamestate.records import Commit, CommitResult, Meta
from services.gamestate.replay import replay_entries, taken_back_event
from services.gamestate.status import status_of
from services.gamestate.wire import fingerprint, now_ms

IDEM_RE = re.compile(r"^[\x21-\x7e]{1,200}$")
#: What an idempotency key of a take-back is bound to (with the version), in place of a move's action JSON text
TAKE_BACK_REQUEST = "take_back"


@dataclass(slots=True)
class SubmitResult:
    version: int
    events: list[dict[str, Any]]
    status: str
    to_act: list[int]
    replayed: bool


def redact(events: list[dict[str, Any]], seat: int | None) -> list[dict[str, Any]]:
    """The stored event JSONs `seat` may see (None = spectator), as engine.redact_events does."""
    return [e for e in events if "visible_to" not in e or (seat is not None and seat in e["visible_to"])]


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


class Moves:
    """Validates and applies moves; every refusal is a ServiceError raised before anything is written."""

    def __init__(self, lookup: Lookup, pipeline: Pipeline, bots: BotDispatch):
        self.lookup = lookup
        self.pipeline = pipeline
        self.bots = bots

    async def submit(
        self, game_id: str, token: str, action_json: str, expected_version: int, idem_key: str
    ) -> SubmitResult:
        with _Counted() as counted:
            result, counted.game = await self._submit_on_cache(game_id, token, action_json, expected_version, idem_key)
            if result is None:
                meta = await self.lookup.meta(game_id)
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
        meta = self.lookup.store.cached_meta(game_id)
        if meta is None or meta.version != expected_version:
            return None, "-"
        h = tokens.token_hash(token)
        seat = next((s for s, stored in meta.token_hashes.items() if secrets.compare_digest(stored, h)), None)
        if seat is None or seat in meta.bots:
            return None, "-"
        self.lookup.name(meta)
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
            meta = await self.lookup.meta(game_id)
            counted.game = meta.game
            if seat not in meta.bots:
                raise errors.denied(f"seat {seat} is not a bot seat of this game")
            return counted.done(await self._submit_as(meta, seat, action_json, expected_version, idem_key))

    async def _submit(
        self, meta: Meta, token: str, action_json: str, expected_version: int, idem_key: str
    ) -> SubmitResult:
        seat = await self.lookup.writer_seat(meta, token)
        if seat in meta.bots:  # handed to the zombie bot a moment ago; its token is being revoked
            raise errors.unauthenticated("this seat was resigned or abandoned: a bot plays it now")
        return await self._submit_as(meta, seat, action_json, expected_version, idem_key)

    async def _submit_as(
        self, meta: Meta, seat: int, action_json: str, expected_version: int, idem_key: str
    ) -> SubmitResult:
        return await self._keyed(meta, seat, action_json, expected_version, idem_key,
                                 lambda request_print: self._apply(meta, seat, action_json, expected_version, idem_key,
                                                                   request_print))

    async def _keyed(
        self, meta: Meta, seat: int, request_text: str, expected_version: int, idem_key: str,
        run: Callable[[str], Awaitable[SubmitResult]],
    ) -> SubmitResult:
        """`run(request_print)` once per idempotency key: a key already used answers its first outcome (if the
        request, `request_text` at `expected_version`, is the same), and so does a racing twin that committed first."""
        if idem_key and not IDEM_RE.match(idem_key):
            raise errors.invalid("idempotency_key must be 1-200 printable ASCII characters without spaces")
        request_print = fingerprint(request_text, expected_version) if idem_key else ""  # only keys are bound to it
        if idem_key:
            first = await self.lookup.store.idempotent(meta.game_id, seat, idem_key)
            if first is not None:
                return _replay(first, request_print)
        try:
            return await run(request_print)
        except errors.ServiceError as exc:
            if exc.reason == "stale_version" and idem_key:
                # A racing twin with the same key may have committed in between: replay it.
                first = await self.lookup.store.idempotent(meta.game_id, seat, idem_key)
                if first is not None:
                    return _replay(first, request_print)
            raise

    async def _apply(
        self,
        meta: Meta,
        seat: int,
        action_json: str,
        expected_version: int,
        idem_key: str,
        request_print: str,
        token_hash: str | None = None,
    ) -> SubmitResult:
        """Validate, apply and commit; with `token_hash` (a move decided on cached metadata) the commit also
        checks that hash is still the seat's, and any refusal is a ServiceError for the caller to retry afresh."""
        obj = json_argument(action_json, "action_json")
        game = self.lookup.game(meta.game)
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
        version, state = await self.lookup.state(meta)
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
        undo = None
        if seat not in meta.bots:  # a player's decision may be taken back where the engine allows (bots never do)
            undo = takeback.after_move(game, state, seat, action, new, deadlines=meta.deadlines,
                                       reserves=meta.reserves,
                                       state_of=expected_version if meta.state_of is None else meta.state_of)
        commit = Commit.move(
            expected_version, new, seat, action.to_json(), event_json, meta.clock_ms,
            running_deadlines(meta.deadlines, state.to_act(), seat),
            idem_key=idem_key or None,
            idem_value={"fingerprint": request_print, "events": mine, "status": status_of(new),
                        "to_act": new.to_act()},
            token_check=(seat, token_hash) if token_hash else None,
            bot_wait_ms=self.bots.wait_ms(meta.bots, new.to_act()),
            extra_meta=extra,
            reserves=spend_reserve(meta.reserves, meta.deadlines, seat, at) if meta.reserves else {},
            at_ms=at,
            forfeited=meta.forfeited,
            undo=undo,
        )
        # a bot's own move (SubmitBotAction; a human's seat is never in bots) leaves follow-ups (bot_policy)
        result = await self.pipeline.run(meta, commit, follow_up=seat in meta.bots)
        first = await self._unless_committed(meta, seat, result, expected_version, request_print)
        if first is not None:
            return first
        return SubmitResult(result.version or 0, mine, status_of(new), new.to_act(), replayed=False)

    async def _unless_committed(
        self, meta: Meta, seat: int, result: CommitResult, expected_version: int, request_print: str
    ) -> SubmitResult | None:
        """What a seat's own commit (a move, a take-back) answers when the pipeline refused it: a duplicate's
        first outcome, else the refusal raised as a ServiceError; None when it went in. One mapping, so a move
        and a take-back refused for the same reason say the same."""
        if result.status == "ok":
            return None
        if result.status == "dup":
            return _replay(result.duplicate or {}, request_print)
        if result.status == "stale":
            raise errors.stale(expected_version, result.version or 0)
        if result.status == "token":  # revoked since it was looked up: the seat may have resigned meanwhile
            fresh = await self.lookup.meta(meta.game_id)
            if seat in fresh.forfeited:
                raise seat_over(fresh, seat)
            raise errors.unauthenticated("unknown or revoked seat token")
        raise errors.not_found(meta.game_id)

    async def take_back(self, game_id: str, token: str, expected_version: int, idem_key: str) -> SubmitResult:
        """The token's seat takes back its last decision (TakeBack): a new version whose state is the one before
        that decision. Refused (FAILED_PRECONDITION, reason "take_back_not_allowed") unless the last commit was a
        decision of this seat that the engine lets it take back (services/gamestate/takeback.py)."""
        meta = await self.lookup.meta(game_id)
        seat = await self.lookup.writer_seat(meta, token)
        if seat in meta.bots:
            raise errors.unauthenticated("this seat was resigned or abandoned: a bot plays it now")
        return await self._keyed(meta, seat, TAKE_BACK_REQUEST, expected_version, idem_key,
                                 lambda request_print: self._take_back(meta, seat, expected_version, idem_key,
                                                                       request_print))

    async def _take_back(
        self, meta: Meta, seat: int, expected_version: int, idem_key: str, request_print: str
    ) -> SubmitResult:
        if expected_version != meta.version:
            raise errors.stale(expected_version, meta.version)
        if meta.ended:
            raise errors.precondition("the game has ended" if meta.status == "aborted" else "the game is over",
                                      "game_over")
        undo = meta.undo
        why = takeback.refusal(undo, seat)
        if why or undo is None:
            raise errors.precondition(why or "nothing to take back", "take_back_not_allowed")
        game = self.lookup.game(meta.game)
        entries = await self.lookup.store.log(meta.game_id, undo.to)
        restored = replay_entries(game.new(meta.players, meta.seed, meta.options), game, entries)
        events = [taken_back_event(seat, undo.to).to_json()]
        keep = {s: d for s, d in meta.deadlines.items() if s != seat and s in restored.to_act()}
        if undo.deadline is not None:  # the clock goes back too: taking back never buys time
            keep[seat] = undo.deadline
        reserves = {**meta.reserves, seat: undo.reserve} if undo.reserve is not None else meta.reserves
        commit = Commit.take_back(
            expected_version, restored, seat, undo.to, events, meta.clock_ms, keep,
            idem_key=idem_key or None,
            idem_value={"fingerprint": request_print, "events": events, "status": status_of(restored),
                        "to_act": restored.to_act()},
            token_check=None, bot_wait_ms=self.bots.wait_ms(meta.bots, restored.to_act()), reserves=reserves,
            at_ms=now_ms(), forfeited=meta.forfeited, undo=takeback.entry_undo(entries, undo.to),
        )
        result = await self.pipeline.run(meta, commit)
        first = await self._unless_committed(meta, seat, result, expected_version, request_print)
        if first is not None:
            return first
        metrics.TAKE_BACKS.labels(meta.game).inc()
        return SubmitResult(result.version or 0, events, status_of(restored), restored.to_act(), replayed=False)


def _replay(first: dict[str, Any], request_print: str) -> SubmitResult:
    """The answer a first submission with this idempotency key got, if this one is the same request."""
    if first.get("fingerprint") != request_print:
        raise errors.invalid("idempotency_key was already used for a different request", "idempotency_mismatch")
    return SubmitResult(first["version"], first["events"], first["status"], first["to_act"], replayed=True)
