"""How games end early: abort, abandoned seats (consecutive timeouts, inactivity) and the zombie hand-over.

A module of its own because these rules are about the platform's seats, not any game's, and Resign, the turn
clock, Abort and the inactivity sweep share them; a zombie seat is just a bot seat, so no rules logic lives here.
The rules: docs/platform/gamestate.md ("Clocks and endings").
"""

from __future__ import annotations

import logging
from collections.abc import Collection
from dataclasses import dataclass, replace
from typing import Any

from engine.core import Event
from services.common import standings
from services.gamestate import errors
from services.gamestate.bot_dispatch import BotDispatch
from services.gamestate.bots import bot_levels
from services.gamestate.lookup import Lookup
from services.gamestate.pipeline import Pipeline, running_deadlines
from services.gamestate.quotas import account_of_seat, zombie_levels
from services.gamestate.records import Commit, Meta
from services.gamestate.wire import dumps, now_ms

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Seats:
    """Who plays what: bot seats (level), resigned and abandoned seats, as the metadata records them."""

    bots: dict[int, str]
    resigned: list[int]
    abandoned: list[int]

    @classmethod
    def of(cls, meta: Meta) -> Seats:
        return cls(dict(meta.bots), list(meta.resigned), list(meta.abandoned))

    def hand_over(self, seat: int, level: str, status: str) -> Seats:
        """`seat` resigned or abandoned (`status`), played from now on by bot `level` ("" = default decision)."""
        bots = dict(self.bots)
        if level:
            bots[seat] = level
        resigned = sorted({*self.resigned, seat}) if status == "resigned" else self.resigned
        abandoned = sorted({*self.abandoned, seat}) if status == "abandoned" else self.abandoned
        return Seats(bots, resigned, abandoned)

    @property
    def forfeited(self) -> list[int]:
        """Resigned or abandoned: ranked last, never winners (services/common/standings.py)."""
        return sorted({*self.resigned, *self.abandoned})

    def fields(self) -> dict[str, str]:
        """The metadata fields a commit writes for this (Commit.extra_meta)."""
        return {"bots": dumps({str(s): b for s, b in sorted(self.bots.items())}), "resigned": dumps(self.resigned),
                "abandoned": dumps(self.abandoned)}

    def apply_to(self, meta: Meta) -> Meta:
        return replace(meta, bots=self.bots, resigned=self.resigned, abandoned=self.abandoned)


def hand_over(meta: Meta, seat: int, level: str, status: str) -> Seats:
    return Seats.of(meta).hand_over(seat, level, status)


def forfeit_events(players: int, forfeited: Collection[int], reason: str) -> list[dict[str, Any]]:
    """`game_forfeited` when these forfeits leave one seat: the commit ends the game and that seat wins
    (services/common/standings.py). Nothing when the game plays on, or when nobody is left to win."""
    left = standings.seats_left(players, forfeited)
    if not standings.ends_by_forfeit(players, forfeited) or not left:
        return []
    return [Event("game_forfeited", {"seat": left[0], "reason": reason}).to_json()]


def zombie_level(players: int, forfeited: Collection[int], level: str) -> str:
    """Who plays a seat just forfeited: `level`, unless the forfeit ends the game ("": nobody plays on)."""
    return "" if standings.ends_by_forfeit(players, forfeited) else level


def count_timeout(timeouts: dict[int, int], seat: int, limit: int) -> tuple[dict[int, int], bool]:
    """The consecutive-timeout counts after one more timeout of `seat`, and whether it is now abandoned
    (`limit` reached; 0 = never). An abandoned seat's count is dropped."""
    count = timeouts.get(seat, 0) + 1
    if limit and count >= limit:
        return {s: n for s, n in timeouts.items() if s != seat}, True
    return {**timeouts, seat: count}, False


def timeouts_field(timeouts: dict[int, int]) -> str:
    return dumps({str(s): n for s, n in sorted(timeouts.items())})


def seat_states(meta: Meta) -> list[tuple[int, str, str, str]]:
    """(seat, kind "human" | "bot", status "active" | "resigned" | "abandoned", bot level or "") per seat."""
    out = []
    for seat in range(meta.players):
        status = "resigned" if seat in meta.resigned else "abandoned" if seat in meta.abandoned else "active"
        kind = "bot" if seat in meta.bots and status == "active" else "human"
        out.append((seat, kind, status, meta.bots.get(seat, "")))
    return out


def undecided_humans(meta: Meta, entries: list[dict[str, Any]]) -> list[int]:
    """Human seats that have not yet made a decision of their own (clock defaults and auto-play are not)."""
    decided = {e.get("seat") for e in entries if e.get("kind") == "move"}
    return [s for s in meta.human_seats() if s not in decided]


class Endings:
    """Resign, abort and the inactivity sweep: each builds its change and commits it through the pipeline."""

    def __init__(self, lookup: Lookup, pipeline: Pipeline, bots: BotDispatch, *, zombie_bot_level: str,
                 inactive_game_ms: int):
        self.lookup = lookup
        self.store = lookup.store
        self.pipeline = pipeline
        self.bots = bots
        if zombie_bot_level and zombie_bot_level not in bot_levels():
            raise ValueError(f"ZOMBIE_BOT_LEVEL {zombie_bot_level!r} is not a bot level: {', '.join(bot_levels())}")
        #: who plays resigned and abandoned seats ("" = the engine's default decision)
        self.zombie_bot_level = zombie_bot_level
        #: an active game with no commit for this long ends (0 = never): see sweep_inactive
        self.inactive_game_ms = inactive_game_ms

    # ------------------------------------------------------------------ resign

    async def resign(self, game_id: str, token: str, bot_level: str) -> int:
        """Resign the token's seat: the zombie bot (ZOMBIE_BOT_LEVEL) plays it from now on. Only an unrated game
        lets the client name another level (`bot_level`); the player ranks last if the game is rated."""
        meta = await self.lookup.meta(game_id)
        seat = await self.lookup.writer_seat(meta, token)
        if bot_level and meta.rated:
            raise errors.invalid(
                f"a rated game's resigned seat is played by the zombie level ({self.zombie_bot_level or 'default'}); "
                "leave bot_level empty", "bot_level_not_allowed")
        if bot_level and bot_level not in bot_levels():
            raise errors.invalid(f"unknown bot level {bot_level!r}; known: {', '.join(bot_levels())}")
        if seat in meta.bots:
            raise errors.unauthenticated("this seat was resigned or abandoned: a bot plays it now")
        if bot_level and bot_level != self.zombie_bot_level:
            await self._check_bot_seat_room(meta, seat)
            level = bot_level
        else:  # the platform's zombie, within the account's bot seats (else the default decision plays the seat)
            level = (await zombie_levels(self.pipeline.quotas, meta, [seat], self.zombie_bot_level))[seat]
        for _attempt in range(5):  # a resignation does not depend on the position: retry a lost race
            if meta.ended:
                raise errors.precondition("the game is over", "game_over")
            version = await self._resign_once(meta, seat, level)
            if version is not None:
                return version
            meta = await self.lookup.meta(game_id)
        raise errors.stale(meta.version, meta.version)

    async def _check_bot_seat_room(self, meta: Meta, seat: int) -> None:
        """A level the client names for its resigned seat is a bot seat charged to the seat's account
        (docs/decisions/abuse-bounds.md): refused (RESOURCE_EXHAUSTED) when that account has no bot seat left. The
        platform's own zombie level is charged too but never refused: resigning must always be possible, so without a
        bot seat to spare the seat is played by the default decision instead (`quotas.zombie_levels`)."""
        quotas = self.pipeline.quotas
        account = account_of_seat(meta, seat)
        if quotas is None or not account:
            return  # an unowned development game: nobody to charge (as its creation)
        if await quotas.bot_seat_room(account) < 1:
            message = (f"quota reached: at most {quotas.quotas.bot_seats} bot seats across active games per player; "
                       "resign without bot_level (the platform's zombie level plays the seat)")
            raise errors.ServiceError(errors.quota_exceeded(message).code, "quota_exceeded", message,
                                      extra={"players": [account], "quota": "bot_seats"})

    async def _resign_once(self, meta: Meta, seat: int, bot_level: str) -> int | None:
        """One compare-and-set attempt at resigning; None if the game moved on meanwhile."""
        version, state = await self.lookup.state(meta)
        if version != meta.version:
            return None  # resigned/bots below must come from the metadata of the version we commit on
        bot_level = zombie_level(meta.players, {*meta.forfeited, seat}, bot_level)
        seats = hand_over(meta, seat, bot_level, "resigned")
        events = [Event("seat_resigned", {"seat": seat, "bot": bot_level or None}).to_json(),
                  *forfeit_events(meta.players, seats.forfeited, "resigned")]
        commit = Commit.resign(
            version, state, seat, events, meta.clock_ms, running_deadlines(meta.deadlines, state.to_act(), -1),
            extra_meta={**seats.fields(),
                        "timeouts": timeouts_field({s: n for s, n in meta.timeouts.items() if s != seat})},
            bot_wait_ms=self.bots.wait_ms(seats.bots, state.to_act()),
            reserves=meta.reserves,
            forfeited=seats.forfeited,
        )
        result = await self.pipeline.run(meta, commit, after=seats.apply_to(meta))
        if result.status == "stale":
            return None
        if result.status != "ok":
            raise errors.not_found(meta.game_id)
        return result.version or 0

    # ------------------------------------------------------------------ abort

    async def abort(self, game_id: str, token: str) -> int:
        """End the game unrated (status "aborted") on a seat's request, while the abort rule allows it."""
        meta = await self.lookup.meta(game_id)
        seat = await self.lookup.writer_seat(meta, token)
        if meta.ended:
            raise errors.precondition("the game has already ended", "game_over")
        version, state = await self.lookup.state(meta)
        if version != meta.version:
            raise errors.stale(meta.version, version)
        refusal = await self._abort_refusal(meta)
        if refusal:
            raise errors.precondition(refusal, "abort_not_allowed")
        event = Event("game_aborted", {"seat": seat, "reason": "requested"}).to_json()
        result = await self.pipeline.run(
            meta, Commit.abort(version, state, seat, [event], meta.clock_ms, reserves=meta.reserves,
                               forfeited=meta.forfeited))
        if result.status == "stale":
            raise errors.stale(version, result.version or 0)
        if result.status != "ok":
            raise errors.not_found(game_id)
        return result.version or 0

    async def _abort_refusal(self, meta: Meta) -> str | None:
        """Why the game may not be aborted now, or None."""
        if meta.resigned or meta.abandoned:
            return "a seat has resigned or been abandoned: the game is played out (resign instead)"
        if not undecided_humans(meta, await self.store.log(meta.game_id)):
            return "every human seat has made its first decision: the game can no longer be aborted (resign instead)"
        return None

    # ------------------------------------------------------------------ inactivity

    async def sweep_inactive(self) -> int:
        """End the active games with no commit for INACTIVE_GAME_DAYS (see the module's rules); returns how
        many were changed. Safe with several instances: every change is a compare-and-set on the version."""
        if self.inactive_game_ms <= 0:
            return 0
        now = now_ms()
        changed = 0
        for game_id in await self.store.idle_since(now - self.inactive_game_ms):
            try:
                changed += await self._end_inactive(game_id, now)
            except Exception:
                log.exception("inactivity sweep failed for game %s", game_id)
        return changed

    async def _end_inactive(self, game_id: str, now: int) -> int:
        meta = await self.store.meta(game_id)
        if meta is None or meta.ended or meta.updated_ms > now - self.inactive_game_ms:
            return 0  # ended, or moved on since the index was read (its commit re-indexed it)
        version, state = await self.store.load(game_id, meta)
        if version != meta.version:
            return 0
        entries = await self.store.log(game_id)
        humans = meta.human_seats()
        if not meta.resigned and not meta.abandoned and len(undecided_humans(meta, entries)) == len(humans):
            event = Event("game_aborted", {"seat": None, "reason": "inactive"}).to_json()
            commit = Commit.abort(version, state, None, [event], meta.clock_ms, reserves=meta.reserves, at_ms=now,
                                  forfeited=meta.forfeited)
            return 1 if (await self.pipeline.run(meta, commit)).status == "ok" else 0
        gone = [s for s in state.to_act() if s in meta.playing_humans()]
        if not gone:
            await self.store.touch(game_id, now)  # waits on bots or auto-play: look again a period later
            return 0
        seats = Seats.of(meta)
        events = []
        level = zombie_level(meta.players, {*meta.forfeited, *gone}, self.zombie_bot_level)
        levels = await zombie_levels(self.pipeline.quotas, meta, gone, level)
        for seat in gone:
            seats = seats.hand_over(seat, levels[seat], "abandoned")
            events.append(Event("seat_abandoned", {"seat": seat, "bot": levels[seat] or None,
                                                   "reason": "inactive"}).to_json())
        events += forfeit_events(meta.players, seats.forfeited, "abandoned")
        timeouts = {s: n for s, n in meta.timeouts.items() if s not in gone}
        commit = Commit.abandon(
            version, state, events, meta.clock_ms, dict(meta.deadlines), reserves=meta.reserves, at_ms=now,
            extra_meta={**seats.fields(), "timeouts": timeouts_field(timeouts)},
            bot_wait_ms=self.bots.wait_ms(seats.bots, state.to_act()), forfeited=seats.forfeited,
        )
        return 1 if (await self.pipeline.run(meta, commit, after=seats.apply_to(meta))).status == "ok" else 0
