"""Tournaments in SQL, the system of record for durable records like accounts and ratings (migration 0004).

Why SQL and not Redis: an event lasts hours or days and its standings are the result players keep, as ratings
are. Nothing derived is stored: an event's state (services/tournaments/swiss.py) is rebuilt from its entrants,
its rounds as paired and its tables' results, so the standings always equal a recomputation from the record.
Every change that must happen once is one transaction guarded by a key:
- a round is paired once: its `tournament_rounds` row is the round's primary key, inserted with its tables in one
  transaction (PostgreSQL also locks the event's row, so a second director waits, then finds the round paired);
- a table's game is set once (`game_id IS NULL`) and unique over every event;
- a table's result is recorded once (`ended_ms IS NULL`), whoever reads the game's end and however often.
An arena (services/tournaments/arena.py) keeps its tables in the same rows, all in round 0, numbered in the order
they were seated; a seating pass runs under the event's row lock on the state rebuilt from the rows (a player at a
table not yet ended is playing), so nobody is seated twice at once, and a second pass racing it on a store
without row locks fails on the table's key.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import func, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker

from services.archive.models import TournamentPlayerRow, TournamentRoundRow, TournamentRow, TournamentTableRow
from services.tournaments.arena import Arena, ArenaSettings
from services.tournaments.swiss import Pairing, Swiss, SwissSettings, Table

#: the round an arena's tables are kept in (an arena has no rounds)
ARENA_ROUND = 0


class Refused(Exception):
    """A request the event's state or rules refuse; `code` is the API's error code, nothing changed."""

    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code = code
        self.message = message


#: The fewest active players a Swiss round is paired for; a started event left with fewer is over.
MIN_PLAYERS = 2


def _over(event: Swiss) -> bool:
    """Every round played, or a round complete and too few players left to pair another."""
    return event.finished() or (event.round >= 1 and event.round_complete()
                                and len(event.tally.active()) < MIN_PLAYERS)


@dataclass(frozen=True, slots=True)
class TableRecord:
    """One table as stored: its players in the table's order, its game once created, its result once ended."""

    round: int
    number: int
    players: list[str | None]
    game_id: str | None
    places: list[int] | None
    scores: list[int] | None
    ended_ms: int | None


@dataclass(frozen=True, slots=True)
class Event:
    """A tournament as created; `settings` are its format's (SwissSettings' fields for a Swiss event)."""

    tournament_id: str
    kind: str
    game: str
    name: str
    organiser: str
    settings: dict[str, Any]
    options: dict[str, Any]
    time_control: dict[str, Any] | None
    rated: bool
    bots_allowed: bool
    max_players: int
    status: str
    created_ms: int
    starts_ms: int

    def swiss_settings(self) -> SwissSettings:
        s = self.settings
        return SwissSettings(seats=s["seats"], rounds=s["rounds"], byes=s.get("byes", "bots"),
                             points=tuple(s.get("points") or ()), bye_points=s.get("bye_points"))

    def arena_settings(self) -> ArenaSettings:
        """An arena's rules: its window is from `starts_ms` to the settings' `ends_ms`."""
        s = self.settings
        return ArenaSettings(seats=s["seats"], start_ms=self.starts_ms, end_ms=s["ends_ms"],
                             points=tuple(s.get("points") or ()), streak_after=s.get("streak_after", 2),
                             streak_factor=s.get("streak_factor", 2), bots_after_ms=s.get("bots_after_ms"))


def _event(row: TournamentRow) -> Event:
    return Event(row.tournament_id, row.kind, row.game, row.name, row.organiser, dict(row.settings),
                 dict(row.options), row.time_control, row.rated, row.bots_allowed, row.max_players, row.status,
                 row.created_ms, row.starts_ms)


class TournamentStore:
    """Events, entrants, rounds and tables in SQL. One per process; a session per call."""

    def __init__(self, engine: AsyncEngine):
        self.engine = engine
        self.sessions = async_sessionmaker(engine, expire_on_commit=False)

    @property
    def _pg(self) -> bool:
        return self.engine.dialect.name == "postgresql"

    async def create(self, event: Event) -> None:
        async with self.sessions.begin() as s:
            s.add(TournamentRow(
                tournament_id=event.tournament_id, kind=event.kind, game=event.game, name=event.name,
                organiser=event.organiser, settings=event.settings, options=event.options,
                time_control=event.time_control,
                rated=event.rated, bots_allowed=event.bots_allowed, max_players=event.max_players,
                status=event.status, created_ms=event.created_ms, starts_ms=event.starts_ms))

    async def get(self, tournament_id: str) -> Event | None:
        async with self.sessions() as s:
            row = await s.get(TournamentRow, tournament_id)
            return _event(row) if row is not None else None

    async def listing(self, status: str | None = None, limit: int = 50) -> list[Event]:
        """Events by start, soonest first (of one status, if given)."""
        query = select(TournamentRow).order_by(TournamentRow.starts_ms, TournamentRow.tournament_id).limit(limit)
        if status is not None:
            query = query.where(TournamentRow.status == status)
        async with self.sessions() as s:
            return [_event(r) for r in (await s.scalars(query)).all()]

    async def counts(self, tournament_ids: Sequence[str]) -> dict[str, tuple[int, int]]:
        """Per event: (the last round paired, entrants not withdrawn), in two grouped queries: a listing reads
        these without rebuilding each event."""
        if not tournament_ids:
            return {}
        ids = list(tournament_ids)
        async with self.sessions() as s:
            rounds = dict((await s.execute(select(TournamentRoundRow.tournament_id, func.max(TournamentRoundRow.round))
                                           .where(TournamentRoundRow.tournament_id.in_(ids))
                                           .group_by(TournamentRoundRow.tournament_id))).all())
            entrants = dict((await s.execute(select(TournamentPlayerRow.tournament_id, func.count())
                                             .where(TournamentPlayerRow.tournament_id.in_(ids),
                                                    TournamentPlayerRow.withdrawn_ms.is_(None))
                                             .group_by(TournamentPlayerRow.tournament_id))).all())
        return {t: (int(rounds.get(t) or 0), int(entrants.get(t) or 0)) for t in ids}

    async def organised_since(self, organiser: str, since_ms: int) -> int:
        """How many events `organiser` created since `since_ms` (the organiser's quota)."""
        async with self.sessions() as s:
            return int(await s.scalar(select(func.count()).select_from(TournamentRow).where(
                TournamentRow.organiser == organiser, TournamentRow.created_ms >= since_ms)) or 0)

    async def _locked(self, s: AsyncSession, tournament_id: str) -> TournamentRow:
        query = select(TournamentRow).where(TournamentRow.tournament_id == tournament_id)
        row = (await s.scalars(query.with_for_update() if self._pg else query)).first()
        if row is None:
            raise Refused("unknown_tournament", f"no tournament {tournament_id}")
        return row

    async def join(self, tournament_id: str, player_id: str, kind: str, seed: float, now_ms: int) -> bool:
        """Enter the event (again, after a withdrawal, while it is open); False if already entered."""
        async with self.sessions.begin() as s:
            event = await self._locked(s, tournament_id)
            if event.status == "finished" or (event.kind == "arena" and now_ms >= event.settings["ends_ms"]):
                raise Refused("tournament_finished", "the tournament has finished")
            if kind == "bot" and not event.bots_allowed:
                raise Refused("bots_not_allowed", "the organiser does not allow bot accounts in this tournament")
            row = await s.get(TournamentPlayerRow, (tournament_id, player_id))
            if row is not None and row.withdrawn_ms is None:
                return False
            if row is not None and event.status != "open":
                raise Refused("tournament_started", "a withdrawn player may enter again only before the start")
            entered = await s.scalar(select(func.count()).select_from(TournamentPlayerRow).where(
                TournamentPlayerRow.tournament_id == tournament_id, TournamentPlayerRow.withdrawn_ms.is_(None)))
            if int(entered or 0) >= event.max_players:
                raise Refused("tournament_full", f"the tournament is full ({event.max_players} players)")
            if row is not None:
                row.withdrawn_ms = None
                row.joined_ms = now_ms
            else:
                s.add(TournamentPlayerRow(tournament_id=tournament_id, player_id=player_id, kind=kind, seed=seed,
                                          joined_ms=now_ms, withdrawn_ms=None))
            return True

    async def withdraw(self, tournament_id: str, player_id: str, now_ms: int) -> bool:
        """No further pairings for the player; False if it was not entered (or withdrew before)."""
        async with self.sessions.begin() as s:
            await self._locked(s, tournament_id)
            done = await s.execute(update(TournamentPlayerRow).where(
                TournamentPlayerRow.tournament_id == tournament_id, TournamentPlayerRow.player_id == player_id,
                TournamentPlayerRow.withdrawn_ms.is_(None)).values(withdrawn_ms=now_ms))
            return bool(done.rowcount)

    async def withdrawn(self, tournament_id: str) -> set[str]:
        """The players who withdrew from the event."""
        async with self.sessions() as s:
            return set((await s.scalars(select(TournamentPlayerRow.player_id).where(
                TournamentPlayerRow.tournament_id == tournament_id,
                TournamentPlayerRow.withdrawn_ms.is_not(None)))).all())

    async def swiss(self, tournament_id: str) -> Swiss:
        """The event's state rebuilt from its rows: entrants, each round as paired, each result."""
        async with self.sessions() as s:
            return await self._swiss(s, tournament_id)

    async def _swiss(self, s: AsyncSession, tournament_id: str) -> Swiss:
        row = await s.get(TournamentRow, tournament_id)
        if row is None:
            raise Refused("unknown_tournament", f"no tournament {tournament_id}")
        event = Swiss(_event(row).swiss_settings())
        players = (await s.scalars(select(TournamentPlayerRow).where(
            TournamentPlayerRow.tournament_id == tournament_id).order_by(TournamentPlayerRow.joined_ms,
                                                                           TournamentPlayerRow.player_id))).all()
        for p in players:
            event.join(p.player_id, p.seed)
        rounds = (await s.scalars(select(TournamentRoundRow).where(
            TournamentRoundRow.tournament_id == tournament_id).order_by(TournamentRoundRow.round))).all()
        tables = (await s.scalars(select(TournamentTableRow).where(
            TournamentTableRow.tournament_id == tournament_id).order_by(TournamentTableRow.round,
                                                                          TournamentTableRow.number))).all()
        by_round: dict[int, list[TournamentTableRow]] = {}
        for t in tables:
            by_round.setdefault(t.round, []).append(t)
        for r in rounds:
            seated = by_round.get(r.round, [])
            event.restore(Pairing(r.round, tuple(Table(t.number, tuple(t.players)) for t in seated),
                                  tuple(r.byes)))
            for t in seated:
                if t.places is not None:
                    event.record(r.round, t.number, t.places, t.scores or [0] * len(t.places))
        for p in players:
            if p.withdrawn_ms is not None:
                event.withdraw(p.player_id)
        return event

    async def pair_next(self, tournament_id: str, now_ms: int, min_players: int = MIN_PLAYERS) -> Pairing | None:
        """Pair the event's next round if it is due (started, the last round complete, rounds left, enough
        players), in one transaction; None if not due or if another director paired it first."""
        try:
            async with self.sessions.begin() as s:
                row = await self._locked(s, tournament_id)
                if row.status == "finished" or now_ms < row.starts_ms:
                    return None
                event = await self._swiss(s, tournament_id)
                if event.finished():
                    return None
                if not event.round_complete() or len(event.tally.active()) < min_players:
                    return None
                pairing = event.pair_next()
                row.status = "running"
                s.add(TournamentRoundRow(tournament_id=tournament_id, round=pairing.round,
                                         byes=list(pairing.byes), paired_ms=now_ms))
                await s.flush()     # the round's key first: a second pairing stops here
                s.add_all(TournamentTableRow(tournament_id=tournament_id, round=pairing.round, number=t.number,
                                             players=list(t.players), game_id=None, places=None, scores=None,
                                             created_ms=now_ms, ended_ms=None) for t in pairing.tables)
                return pairing
        except IntegrityError:
            return None

    async def arena(self, tournament_id: str) -> Arena:
        """An arena's state rebuilt from its rows (see `_arena`)."""
        async with self.sessions() as s:
            return (await self._arena(s, tournament_id))[0]

    async def _arena(self, s: AsyncSession, tournament_id: str) -> tuple[Arena, list[TournamentTableRow]]:
        """The arena as its rows say, and its tables: every entrant queued from its entry (or the start), then
        each table in the order seated (a player's tables follow one another, so its streak reads in order): its
        players taken from the queue and, once it ended, its result (which queues them again); the withdrawn
        out of the queue."""
        row = await s.get(TournamentRow, tournament_id)
        if row is None:
            raise Refused("unknown_tournament", f"no tournament {tournament_id}")
        settings = _event(row).arena_settings()
        arena = Arena(settings)
        players = (await s.scalars(select(TournamentPlayerRow).where(
            TournamentPlayerRow.tournament_id == tournament_id).order_by(TournamentPlayerRow.joined_ms,
                                                                           TournamentPlayerRow.player_id))).all()
        for p in players:
            arena.join(p.player_id, max(p.joined_ms, settings.start_ms), p.seed)
        tables = list((await s.scalars(select(TournamentTableRow).where(
            TournamentTableRow.tournament_id == tournament_id).order_by(TournamentTableRow.number))).all())
        for t in tables:                    # each seated from the queue, then (if ended) its result
            for player in filter(None, t.players):
                arena.waiting.pop(player, None)
                arena.playing.add(player)
            if t.ended_ms is not None:
                arena.record(t.players, t.places, t.scores or [0] * len(t.players), t.ended_ms)
        for p in players:
            if p.withdrawn_ms is not None:
                arena.withdraw(p.player_id)
        return arena, tables

    async def seat_arena(self, tournament_id: str, now_ms: int) -> list[Table]:
        """Seat the arena's waiting players (services/tournaments/arena.py) in one transaction, the event started
        if it was open; the tables seated, or none outside the window or if another director's pass raced this."""
        try:
            async with self.sessions.begin() as s:
                row = await self._locked(s, tournament_id)
                if row.kind != "arena" or row.status == "finished" or now_ms < row.starts_ms:
                    return []
                arena, tables = await self._arena(s, tournament_id)
                if now_ms >= arena.settings.end_ms:
                    return []
                row.status = "running"
                last = max((t.number for t in tables), default=0)
                seated = [Table(last + i, tuple(players)) for i, players in enumerate(arena.seat(now_ms), 1)]
                s.add_all(TournamentTableRow(tournament_id=tournament_id, round=ARENA_ROUND, number=t.number,
                                             players=list(t.players), game_id=None, places=None, scores=None,
                                             created_ms=now_ms, ended_ms=None) for t in seated)
                return seated
        except IntegrityError:
            return []

    async def finish(self, tournament_id: str, now_ms: int | None = None) -> bool:
        """Mark the event finished once its last round is complete, or once a round is complete with fewer than
        MIN_PLAYERS left to pair (the others withdrew or left their seats); an arena once its window is over
        (`now_ms`) and every game it started ended (a table seated whose game was never created is dropped,
        unplayed). True for the one call that did."""
        async with self.sessions.begin() as s:
            row = await self._locked(s, tournament_id)
            if row.status == "finished":
                return False
            if row.kind == "arena":
                if now_ms is None or now_ms < row.settings["ends_ms"]:
                    return False
                tables = (await s.scalars(select(TournamentTableRow).where(
                    TournamentTableRow.tournament_id == tournament_id,
                    TournamentTableRow.ended_ms.is_(None)))).all()
                if any(t.game_id is not None for t in tables):
                    return False
                for t in tables:
                    await s.delete(t)
            elif not _over(await self._swiss(s, tournament_id)):
                return False
            done = await s.execute(update(TournamentRow).where(
                TournamentRow.tournament_id == tournament_id, TournamentRow.status != "finished").values(
                status="finished"))
            return bool(done.rowcount)

    async def unstarted(self, tournament_id: str) -> list[tuple[int, int, list[str | None]]]:
        """(round, table number, players) of the tables whose game is not created yet (a director that stopped
        between pairing and creating finds them here)."""
        async with self.sessions() as s:
            rows = (await s.scalars(select(TournamentTableRow).where(
                TournamentTableRow.tournament_id == tournament_id, TournamentTableRow.game_id.is_(None)).order_by(
                TournamentTableRow.round, TournamentTableRow.number))).all()
            return [(r.round, r.number, list(r.players)) for r in rows]

    async def tables(self, tournament_id: str, round_no: int | None = None) -> list[TableRecord]:
        """The event's tables (of one round, if given), by round and number."""
        query = select(TournamentTableRow).where(TournamentTableRow.tournament_id == tournament_id)
        if round_no is not None:
            query = query.where(TournamentTableRow.round == round_no)
        async with self.sessions() as s:
            rows = (await s.scalars(query.order_by(TournamentTableRow.round, TournamentTableRow.number))).all()
            return [TableRecord(r.round, r.number, list(r.players), r.game_id, r.places, r.scores, r.ended_ms)
                    for r in rows]

    async def table_of(self, game_id: str) -> tuple[str, int, int, list[str | None]] | None:
        """(tournament, round, table number, players in the table's order) of the table whose game is `game_id`
        (None: no tournament's)."""
        async with self.sessions() as s:
            row = (await s.scalars(select(TournamentTableRow).where(TournamentTableRow.game_id == game_id))).first()
            return (row.tournament_id, row.round, row.number, list(row.players)) if row is not None else None

    async def due(self, now_ms: int, limit: int = 500) -> list[str]:
        """Events a director should look at now: running ones, and open ones whose start has come."""
        async with self.sessions() as s:
            return list((await s.scalars(select(TournamentRow.tournament_id).where(
                (TournamentRow.status == "running") | ((TournamentRow.status == "open")
                                                       & (TournamentRow.starts_ms <= now_ms))).order_by(
                TournamentRow.starts_ms).limit(limit))).all())

    async def running_tables(self, tournament_id: str, player_id: str) -> list[str]:
        """The games of the event's tables not ended yet where `player_id` sits (a withdrawal's to play out)."""
        async with self.sessions() as s:
            rows = (await s.scalars(select(TournamentTableRow).where(
                TournamentTableRow.tournament_id == tournament_id, TournamentTableRow.ended_ms.is_(None),
                TournamentTableRow.game_id.is_not(None)))).all()
            return [r.game_id for r in rows if player_id in r.players and r.game_id]

    async def set_game(self, tournament_id: str, round_no: int, number: int, game_id: str) -> bool:
        """The table's game, once: False if the table already has one."""
        async with self.sessions.begin() as s:
            done = await s.execute(update(TournamentTableRow).where(
                TournamentTableRow.tournament_id == tournament_id, TournamentTableRow.round == round_no,
                TournamentTableRow.number == number, TournamentTableRow.game_id.is_(None)).values(game_id=game_id))
            return bool(done.rowcount)

    async def record_result(self, game_id: str, places: Sequence[int] | None, scores: Sequence[int] | None,
                            ended_ms: int) -> tuple[str, int, int] | None:
        """A tournament game's result, once, in the table's order of players (not the game's seats): (tournament,
        round, table) if this call recorded it; None if the game is no tournament's or its result was recorded
        before. No places (an aborted game, which has no result): in a Swiss round a full tie, every seat sharing
        the table's points (the round must still complete); at an arena no result at all (places stay null: the
        game counts as none played, services/tournaments/arena.py); no scores: zeros."""
        async with self.sessions.begin() as s:
            row = (await s.scalars(select(TournamentTableRow).where(TournamentTableRow.game_id == game_id))).first()
            if row is None:
                return None
            width = len(row.players)
            placed: list[int] | None = list(places) if places is not None else (
                None if row.round == ARENA_ROUND else [1] * width)
            scored = list(scores) if scores is not None else [0] * width
            if (placed is not None and len(placed) != width) or len(scored) != width:
                raise ValueError(f"game {game_id}: a result of {len(places or scored)} seats for a table of {width}")
            done = await s.execute(update(TournamentTableRow).where(
                TournamentTableRow.game_id == game_id, TournamentTableRow.ended_ms.is_(None)).values(
                places=placed, scores=scored, ended_ms=ended_ms))
            return (row.tournament_id, row.round, row.number) if done.rowcount else None
