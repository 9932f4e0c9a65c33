"""The one path every change to a game takes, as boardgame.io's master does: validate -> apply -> commit ->
revoke/publish -> dispatch bots.

The kinds of change (services/gamestate/moves.py, endings.py, turn_clock.py) validate a request and
apply it to a clone of the state, which gives a `Commit` built by the constructor named after the kind
(records.py). From there they all go through `Pipeline.commit` (the compare-and-set write, which also appends the
change to the game's stream, then the tokens of seats it handed over revoked and the change counted) and
`Pipeline.settle` (handed-over seats no bot plays auto-played, through `commit` again, then bot moves queued).
No other code commits a change; a creation writes version 0 (Store.create_many) and is then settled here."""

from __future__ import annotations

import logging

from engine.core import Event, State
from services.common import standings
from services.gamestate import metrics
from services.gamestate.bot_dispatch import BotDispatch
from services.gamestate.quotas import QuotaBook, accounts_of
from services.gamestate.records import Commit, CommitResult, Meta
from services.gamestate.store import Store

log = logging.getLogger(__name__)


def running_deadlines(deadlines: dict[int, int], before_to_act: list[int], actor: int) -> dict[int, int]:
    """The deadlines that run on after `actor` decided: every other seat that was already deciding."""
    return {s: d for s, d in deadlines.items() if s != actor and s in before_to_act}


class Pipeline:
    """Commits changes and does what follows each; the store and the bot dispatch are injected."""

    def __init__(self, store: Store, bots: BotDispatch, quotas: QuotaBook | None = None):
        self.store = store
        self.bots = bots
        #: the accounts' books a game leaves when it ends (services/gamestate/quotas.py)
        self.quotas = quotas

    async def run(self, meta: Meta, commit: Commit, *, after: Meta | None = None,
                  follow_up: bool = False) -> CommitResult:
        """Commit one change, then settle the game it leaves (an aborted game has nothing to settle).

        `meta`: the metadata `commit` is checked against; `after`: the same with the seats this commit hands
        over (resigned, abandoned), when it does. `follow_up`: see `settle`."""
        after = meta if after is None else after
        result = await self.commit(meta, commit, after=after)
        if result.status == "ok" and result.game_status != "aborted":
            await self.settle(after, result.version or 0, commit.state, result.deadlines, follow_up=follow_up)
        return result

    async def commit(self, meta: Meta, commit: Commit, *, after: Meta | None = None) -> CommitResult:
        """The compare-and-set write (the store appends the change to the game's stream in the same step), then,
        if it went in, the tokens of the seats it handed over revoked and the change counted. A refused commit
        (stale, duplicate, revoked token, missing game) changes nothing: what it means is the caller's."""
        result = await self.store.commit(meta.game_id, commit)
        if result.status != "ok":
            return result
        handed = [s for s in (after or meta).forfeited if s not in meta.forfeited]
        for seat in handed:  # their players' streams end; the zombie bot plays on
            await self.store.revoke_seat_token(meta.game_id, seat)
            metrics.ENDINGS.labels(meta.game, "resigned" if commit.kind == "resign" else "abandoned").inc()
        if result.game_status != "active" and self.quotas is not None:  # the game leaves its accounts' books
            await self.quotas.release(meta.game_id, accounts_of(meta.owner, meta.seat_players))
        if commit.kind == "abort":
            metrics.ENDINGS.labels(meta.game, "aborted").inc()
        elif commit.kind == "timeout":
            metrics.TIMEOUTS.labels(meta.game).inc()
        return result

    async def settle(
        self, meta: Meta, version: int, state: State, deadlines: dict[int, int] | None = None, *,
        follow_up: bool = False,
    ) -> None:
        """Play the default decisions of handed-over seats no bot plays, then queue bot moves. Never raises.

        `meta` is the metadata the caller's commit was checked against, with the seats that commit handed over:
        its bots, resigned and abandoned seats are current, since changing them is itself a versioned commit.
        `follow_up`: the caller's commit decided for a seat no human plays (a bot's move, the turn clock's default
        for a bot seat), so the bot moves it leaves are follow-ups (services/common/bot_policy.py); so are those left by
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
                result = await self.commit(meta, Commit.auto(
                    version, new, seat, action.to_json(), events, meta.clock_ms,
                    running_deadlines(deadlines, state.to_act(), seat),
                    bot_wait_ms=self.bots.wait_ms(meta.bots, new.to_act()), reserves=reserves,
                    forfeited=meta.forfeited,
                ))
                if result.status != "ok":
                    return  # someone else moved the game on; they handle what follows
                version, state, deadlines = result.version or 0, new, result.deadlines
                follow_up = True  # the platform decided for a handed-over seat: what follows is a follow-up
            await self.bots.dispatch(meta, version, state.to_act(), follow_up)
        except Exception:
            log.exception("post-commit work failed for game %s", meta.game_id)
