"""A Swiss event at tables of N (pure): a fixed number of rounds, each seated by the standings.

Each round seats every active player once: at a table of N chosen by services/tournaments/seating.py (players of
near standings, no repeat opponents where possible), or, for the remainder when the players do not fill whole
tables, by the event's bye rule:
- "bots": the remainder plays one table with bots in the empty seats (bots have no standings);
- "score": the remainder sits the round out and scores `bye_points` (default: the mean of the table's points,
  what a player expects from an even game).
The remainder is the lowest-placed players with the fewest byes so far, so no player gets a second bye before
everyone has had one (the chess rule). Standings: match points from places (services/tournaments/scoring.py),
then Buchholz, then the sum of game scores (services/tournaments/tally.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

from services.tournaments import scoring
from services.tournaments.seating import seat_tables
from services.tournaments.tally import Tally

ByeRule = Literal["bots", "score"]
MAX_ROUNDS = 30


@dataclass(frozen=True)
class SwissSettings:
    """What the organiser chose; validated once, at creation."""

    seats: int
    rounds: int
    byes: ByeRule = "bots"
    points: tuple[int, ...] = ()
    #: in scoring.UNIT; None: the mean of the table's points
    bye_points: int | None = None

    def __post_init__(self) -> None:
        points = scoring.check_points(self.seats, self.points or scoring.default_points(self.seats))
        object.__setattr__(self, "points", points)
        if not 1 <= self.rounds <= MAX_ROUNDS:
            raise ValueError(f"rounds must be 1-{MAX_ROUNDS}, not {self.rounds}")
        if self.byes not in ("bots", "score"):
            raise ValueError(f"byes must be 'bots' or 'score', not {self.byes!r}")
        if self.bye_points is None:
            object.__setattr__(self, "bye_points", sum(points) * scoring.UNIT // self.seats)
        elif isinstance(self.bye_points, bool) or not isinstance(self.bye_points, int) or \
                not 0 <= self.bye_points <= points[0] * scoring.UNIT:
            raise ValueError("bye_points must be a whole number of units between 0 and the points for first")


@dataclass(frozen=True)
class Table:
    """One game of a round: its players by seat, None for a bot seat."""

    number: int
    players: tuple[str | None, ...]


@dataclass(frozen=True)
class Pairing:
    """A round as seated: its tables and the players who sit it out with a bye score."""

    round: int
    tables: tuple[Table, ...]
    byes: tuple[str, ...] = ()


@dataclass
class Swiss:
    """An event's state: its players' records and the rounds paired so far. `pair_next` and `record` are the
    only changes; the service stores the pairings and results and rebuilds this from them."""

    settings: SwissSettings
    tally: Tally = field(default_factory=Tally)
    pairings: list[Pairing] = field(default_factory=list)
    #: (round, table number) of every table whose result is in the tally
    done: set[tuple[int, int]] = field(default_factory=set)

    @property
    def round(self) -> int:
        """The last round paired (0 before the first)."""
        return len(self.pairings)

    def round_complete(self) -> bool:
        return all((self.round, t.number) in self.done for t in self.pairings[-1].tables) if self.pairings else True

    def finished(self) -> bool:
        return self.round >= self.settings.rounds and self.round_complete()

    def join(self, player: str, seed: float = 0.0) -> None:
        """Enter the event (before or between rounds: a late entrant starts with no points)."""
        self.tally.add_player(player, seed)

    def withdraw(self, player: str) -> None:
        """No further pairings; a table already seated is played out and still counts."""
        self.tally.withdraw(player)

    def pair_next(self) -> Pairing:
        """Seat the next round; only once the last one is complete and while rounds are left."""
        if not self.round_complete():
            raise ValueError(f"round {self.round} is still being played")
        if self.round >= self.settings.rounds:
            raise ValueError("every round has been played")
        pairing = pair_round(self.tally, self.settings, self.round + 1)
        self.restore(pairing)
        return pairing

    def restore(self, pairing: Pairing) -> None:
        """Take in a round as it was paired (by `pair_next`, or read back from the store): its byes count now."""
        if pairing.round != self.round + 1:
            raise ValueError(f"the next round is {self.round + 1}, not {pairing.round}")
        self.pairings.append(pairing)
        for player in pairing.byes:
            self.tally.record_bye(player, self.settings.bye_points or 0)
        for table in pairing.tables:
            if None in table.players:       # the remainder's table with bots counts as its bye, for no points
                for player in filter(None, table.players):
                    self.tally.record_bye(player, 0)

    def record(self, round_no: int, number: int, places: Sequence[int], scores: Sequence[int]) -> bool:
        """Add a table's result by its seats' places; False (and nothing changes) if it was added before."""
        if (round_no, number) in self.done:
            return False
        table = self.pairings[round_no - 1].tables[number - 1]
        points = scoring.table_points(places, self.settings.points)
        self.tally.record_table(table.players, points, scores, places)
        self.done.add((round_no, number))
        return True


def pair_round(tally: Tally, settings: SwissSettings, round_no: int) -> Pairing:
    """Seat every active player once: whole tables by standings, the remainder by the bye rule."""
    order = [s.player for s in tally.ranked() if not s.withdrawn]
    remainder = len(order) % settings.seats
    rest = [p for p in order if p not in (out := set(pick_byes(tally, order, remainder)))]
    met = {p: tally.met(p) for p in rest}
    seated = seat_tables(rest, met, settings.seats)
    tables = [Table(i + 1, t) for i, t in enumerate(seated)]
    chosen = tuple(p for p in order if p in out)
    if settings.byes == "bots" and chosen:
        tables.append(Table(len(tables) + 1, chosen + (None,) * (settings.seats - len(chosen))))
        chosen = ()
    return Pairing(round_no, tuple(tables), chosen)


def pick_byes(tally: Tally, order: Sequence[str], count: int) -> list[str]:
    """The `count` lowest-placed players among those with the fewest byes so far."""
    if count == 0:
        return []
    place = {p: i for i, p in enumerate(order)}
    return sorted(order, key=lambda p: (tally.records[p].byes, -place[p]))[:count]
