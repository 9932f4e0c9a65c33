"""Moves: a seat's own decision (SubmitAction with its token, SubmitBotAction for the platform's bots), validated
and applied here, then committed through the pipeline (services/gamestate/pipeline.py).

Why apart: a move is the one change with idempotency keys, a fast path on cached metadata and a per-outcome
metric; the other kinds of change share none of that."""

from __future__ import annotations

import re
import secrets
from dataclasses import dataclass
from typing import Any

from engine.core import IllegalAction
from services.gamestate import errors, metrics, tokens
from services.gamestate.bot_dispatch import BotDispatch
from services.gamestate.clocks import spend_reserve
from services.gamestate.endings import timeouts_field
from services.gamestate.lookup import Lookup, json_argument
from services.gamestate.pipeline import Pipeline, running_deadlines
from services.gamestate.records import Commit, Meta
from services.gamestate.status import status_of
from services.gamestate.wire import fingerprint, now_ms

IDEM_RE = re.compile(r"^[\x21-\x7e]{1,200}$")


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
        seat = await self.lookup.seat(meta, token, required=True)
        if seat in meta.bots:  # handed to the zombie bot a moment ago; its token is being revoked
            raise errors.unauthenticated("this seat was resigned or abandoned: a bot plays it now")
        return await self._submit_as(meta, seat, action_json, expected_version, idem_key)

    async def _submit_as(
        self, meta: Meta, seat: int, action_json: str, expected_version: int, idem_key: str
    ) -> SubmitResult:
        if idem_key and not IDEM_RE.match(idem_key):
            raise errors.invalid("idempotency_key must be 1-200 printable ASCII characters without spaces")
        request_print = fingerprint(action_json, expected_version) if idem_key else ""  # only keys are bound to it
        if idem_key:
            first = await self.lookup.store.idempotent(meta.game_id, seat, idem_key)
            if first is not None:
                return _replay(first, request_print)
        try:
            return await self._apply(meta, seat, action_json, expected_version, idem_key, request_print)
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
        )
        # a bot's own move (SubmitBotAction; a human's seat is never in bots) leaves follow-ups (bot_policy)
        result = await self.pipeline.run(meta, commit, follow_up=seat in meta.bots)
        if result.status == "token":
            raise errors.unauthenticated("unknown or revoked seat token")
        if result.status == "dup":
            return _replay(result.duplicate or {}, request_print)
        if result.status == "stale":
            raise errors.stale(expected_version, result.version or 0)
        if result.status != "ok":
            raise errors.not_found(meta.game_id)
        return SubmitResult(result.version or 0, mine, status_of(new), new.to_act(), replayed=False)


def _replay(first: dict[str, Any], request_print: str) -> SubmitResult:
    """The answer a first submission with this idempotency key got, if this one is the same request."""
    if first.get("fingerprint") != request_print:
        raise errors.invalid("idempotency_key was already used for a different request", "idempotency_mismatch")
    return SubmitResult(first["version"], first["events"], first["status"], first["to_act"], replayed=True)
