"""Standings of one event, kept up to date one table at a time (pure).

Why one tally for both formats: Swiss and arena rank by the same records (points, opponents met, the games'
scores); they differ only in how a table's points are found (Swiss: by place; arena: by place with a streak
bonus) and in their tie-breaks, so each format hands in the points and picks its order. Bot seats (None) have no
record: they are opponents for the game but not for Buchholz.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field


@dataclass
class Record:
    """What one player has done in the event."""

    player: str
    seed: float = 0.0
    points: int = 0  # in scoring.UNIT
    game_score: int = 0
    games: int = 0
    byes: int = 0
    wins: int = 0
    withdrawn: bool = False
    #: every human opponent met, once per table shared (a rematch counts twice, as Buchholz counts it)
    opponents: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Standing:
    """One row of the standings, as every surface shows it."""

    rank: int
    player: str
    points: int  # in scoring.UNIT
    buchholz: int
    game_score: int
    games: int
    byes: int
    withdrawn: bool


class Tally:
    """The records of an event's players; a table's result or a bye is added once, by the caller's key."""

    def __init__(self) -> None:
        self.records: dict[str, Record] = {}

    def add_player(self, player: str, seed: float = 0.0) -> None:
        if player in self.records:
            self.records[player].withdrawn = False
            return
        self.records[player] = Record(player, seed)

    def withdraw(self, player: str) -> None:
        self.records[player].withdrawn = True

    def active(self) -> list[str]:
        return [p for p, r in self.records.items() if not r.withdrawn]

    def met(self, player: str) -> set[str]:
        return set(self.records[player].opponents)

    def record_table(self, players: Sequence[str | None], points: Sequence[int],
                     scores: Sequence[int], places: Sequence[int]) -> None:
        """Add one finished table: each human seat's points, game score and the humans it met."""
        humans = [p for p in players if p is not None]
        for seat, player in enumerate(players):
            if player is None:
                continue
            rec = self.records[player]
            rec.points += points[seat]
            rec.game_score += scores[seat]
            rec.games += 1
            rec.wins += places[seat] == 1
            rec.opponents.extend(o for o in humans if o != player)

    def record_bye(self, player: str, points: int) -> None:
        rec = self.records[player]
        rec.points += points
        rec.byes += 1

    def buchholz(self, player: str) -> int:
        """The sum of the points of every opponent met (once per meeting)."""
        records = self.records
        return sum(records[o].points for o in records[player].opponents)

    def ranked(self) -> list[Standing]:
        """Points, then Buchholz, then the sum of game scores; then the seed (rating) and the id, so the order is
        total and the same everywhere. Equal points, Buchholz and game score share a rank."""
        rows = [(r, self.buchholz(r.player)) for r in self.records.values()]
        rows.sort(key=lambda rb: (-rb[0].points, -rb[1], -rb[0].game_score, -rb[0].seed, rb[0].player))
        out: list[Standing] = []
        for i, (r, b) in enumerate(rows):
            tied = out and (out[-1].points, out[-1].buchholz, out[-1].game_score) == (r.points, b, r.game_score)
            rank = out[-1].rank if tied else i + 1
            out.append(Standing(rank, r.player, r.points, b, r.game_score, r.games, r.byes, r.withdrawn))
        return out
