"""The turn clock: the default decision for every seat whose decision time (and reserve) ran out.

Why apart: a timeout is the platform's change, found by sweeping the clock index rather than asked for, and it
counts towards abandoning the seat (services/gamestate/endings.py). Safe with any number of instances: each
default goes through the pipeline's compare-and-set at the expired version, so only one instance applies it."""

from __future__ import annotations

import logging

from engine.core import Event
from services.gamestate.bot_dispatch import BotDispatch
from services.gamestate.clocks import spend_reserve
from services.gamestate.endings import Seats, count_timeout, forfeit_events, timeouts_field, zombie_level
from services.gamestate.pipeline import Pipeline, running_deadlines
from services.gamestate.quotas import zombie_levels
from services.gamestate.records import Commit
from services.gamestate.wire import now_ms

log = logging.getLogger(__name__)


class TurnClock:
    """Applies expired decisions; abandons a seat after ABANDON_AFTER_TIMEOUTS in a row."""

    def __init__(self, pipeline: Pipeline, bots: BotDispatch, *, abandon_after_timeouts: int,
                 zombie_bot_level: str):
        self.store = pipeline.store
        self.pipeline = pipeline
        self.bots = bots
        #: consecutive timeouts after which a human seat is abandoned (0 = never)
        self.abandon_after_timeouts = abandon_after_timeouts
        self.zombie_bot_level = zombie_bot_level

    async def sweep_once(self) -> int:
        """Apply the default decision for every seat whose turn clock expired; returns how many."""
        applied = 0
        for game_id in await self.store.due_clocks(now_ms()):
            try:
                applied += await self._expire(game_id)
            except Exception:
                log.exception("turn clock sweep failed for game %s", game_id)
        return applied

    async def _expire(self, game_id: str) -> int:
        """The defaults of one game's expired seats, one commit each, then the game settled once."""
        meta = await self.store.meta(game_id)
        now = now_ms()
        if meta is None or meta.status != "active" or not meta.deadline_ms or meta.deadline_ms > now:
            return 0
        version, state = await self.store.load(game_id, meta)
        if version != meta.version:
            return 0
        deadlines, applied = meta.deadlines, 0
        reserves, timeouts, seats = meta.reserves, meta.timeouts, Seats.of(meta)
        bot_timed_out = False  # the last default applied was a bot seat's: the bot moves it leaves are follow-ups
        for seat in sorted(s for s, due in meta.deadlines.items() if due <= now):
            if seat not in state.to_act() or deadlines.get(seat, now + 1) > now:
                continue
            new = state.clone()
            action = new.default_action(seat)
            events = [Event("timeout", {"seat": seat}).to_json()]
            events += [e.to_json() for e in new.apply(seat, action)]
            keep = running_deadlines(deadlines, state.to_act(), seat)
            after = seats
            counts, extra = timeouts, {}
            if seat in meta.playing_humans() and seat not in seats.abandoned:  # bots never abandon
                counts, abandon = count_timeout(timeouts, seat, self.abandon_after_timeouts)
                extra["timeouts"] = timeouts_field(counts)
                if abandon:
                    level = zombie_level(meta.players, {*seats.forfeited, seat}, self.zombie_bot_level)
                    level = (await zombie_levels(self.pipeline.quotas, meta, [seat], level))[seat]
                    after = seats.hand_over(seat, level, "abandoned")
                    extra.update(after.fields())
                    events.append(Event("seat_abandoned", {
                        "seat": seat, "bot": level or None, "reason": "timeouts",
                        "timeouts": self.abandon_after_timeouts}).to_json())
                    events += forfeit_events(meta.players, after.forfeited, "abandoned")
            spent = spend_reserve(reserves, deadlines, seat, now) if reserves else {}
            commit = Commit.timeout(
                version, new, seat, action.to_json(), events, meta.clock_ms, keep,
                bot_wait_ms=self.bots.wait_ms(after.bots, new.to_act()), extra_meta=extra,
                reserves=spent, at_ms=now, forfeited=after.forfeited,
            )
            result = await self.pipeline.commit(seats.apply_to(meta), commit, after=after.apply_to(meta))
            if result.status != "ok":
                break  # another instance (or a player) got there first
            applied += 1
            version, state, deadlines = result.version or 0, new, result.deadlines
            reserves, timeouts, seats = spent, counts, after
            bot_timed_out = seat in meta.bots
            if result.ended:  # the engine's end, or the last rival abandoned (services/common/standings.py)
                break
        if applied:
            await self.pipeline.settle(seats.apply_to(meta), version, state, deadlines, follow_up=bot_timed_out)
        return applied
