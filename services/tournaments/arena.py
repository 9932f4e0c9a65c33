"""An arena (pure): within a time window, a player who finishes a game is queued again at once and seated with
others waiting, by standings.

Why these rules (as Lichess arenas, at tables of N):
- points come from the table's finishing order (services/tournaments/scoring.py); a player on a streak (its last
  `streak_after` games all won, first place) scores `streak_factor` times its points until a game it does not
  win, so playing well and often pays more than waiting;
- seating takes the longest-waiting player as the anchor and fills its table with the waiting players nearest it
  in the standings, passing over anyone who sat at the last table of a player already chosen while others are
  near; a table needs N players,
  except that an anchor who has waited `bots_after_ms` is seated with bots (when the event allows them) rather
  than left waiting;
- no table is seated after the end; a game that ends after it does not count (the window is the event).
The order: points, then the sum of game scores, then the seed and the id.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from services.tournaments import scoring
from services.tournaments.tally import Record, Standing, Tally

#: how many waiting players beyond the nearest free ones an anchor looks at to pass over its last opponents
REMATCH_LOOKAHEAD = 8


@dataclass(frozen=True)
class ArenaSettings:
    seats: int
    start_ms: int
    end_ms: int
    points: tuple[int, ...] = ()
    streak_after: int = 2
    streak_factor: int = 2
    #: seat a player who waited this long with bots; None: never (an event without bots)
    bots_after_ms: int | None = None

    def __post_init__(self) -> None:
        points = scoring.check_points(self.seats, self.points or scoring.default_points(self.seats))
        object.__setattr__(self, "points", points)
        if self.end_ms <= self.start_ms:
            raise ValueError("an arena must end after it starts")
        if self.streak_after < 1 or not 1 <= self.streak_factor <= 4:
            raise ValueError("streak_after must be at least 1 and streak_factor 1-4")
        if self.bots_after_ms is not None and self.bots_after_ms < 0:
            raise ValueError("bots_after_ms must not be negative")


@dataclass
class Arena:
    settings: ArenaSettings
    tally: Tally = field(default_factory=Tally)
    #: player -> when it was queued (ms); insertion order is the queue's order
    waiting: dict[str, int] = field(default_factory=dict)
    #: player -> how many games in a row it has won
    streak: dict[str, int] = field(default_factory=dict)
    #: player -> the players of its last table
    last_opponents: dict[str, frozenset[str]] = field(default_factory=dict)
    playing: set[str] = field(default_factory=set)

    def join(self, player: str, now_ms: int, seed: float = 0.0) -> None:
        self.tally.add_player(player, seed)
        self.streak.setdefault(player, 0)
        if player not in self.playing and self.settings.start_ms <= now_ms < self.settings.end_ms:
            self.waiting.setdefault(player, now_ms)

    def withdraw(self, player: str) -> None:
        """No further tables; a game running is played out and still counts."""
        self.tally.withdraw(player)
        self.waiting.pop(player, None)

    def record(self, players: Sequence[str | None], places: Sequence[int] | None, scores: Sequence[int],
               ended_ms: int) -> list[int]:
        """A table's result: points with the streak bonus, each finisher queued again. Returns each seat's
        points (0 for a game that ended after the window: it does not count). No places: the game was aborted
        (nobody played it to an end), so it counts as no game: no points, no game played, every streak as it was,
        and its players queued again."""
        counts = ended_ms < self.settings.end_ms
        if places is None:
            self._queue_again(players, ended_ms, counts)
            return [0] * len(players)
        base = scoring.table_points(places, self.settings.points)
        points = []
        for seat, player in enumerate(players):
            if player is None:
                points.append(0)
                continue
            on_fire = self.streak.get(player, 0) >= self.settings.streak_after
            got = base[seat] * (self.settings.streak_factor if on_fire else 1) if counts else 0
            points.append(got)
            if counts:
                self.streak[player] = self.streak.get(player, 0) + 1 if places[seat] == 1 else 0
        if counts:
            self.tally.record_table(players, points, scores, places)
        self._queue_again(players, ended_ms, counts)
        return points

    def _queue_again(self, players: Sequence[str | None], ended_ms: int, in_window: bool) -> None:
        """A table's players leave it: queued again while the window is open (unless they withdrew), each
        remembering its table's others so that seating passes over them while others are near."""
        humans = [p for p in players if p is not None]
        for player in humans:
            self.playing.discard(player)
            self.last_opponents[player] = frozenset(o for o in humans if o != player)
            if in_window and not self.tally.records[player].withdrawn:
                self.waiting[player] = ended_ms

    def seat(self, now_ms: int) -> list[tuple[str | None, ...]]:
        """The tables to start now from the players waiting (see the module's rules)."""
        if not self.settings.start_ms <= now_ms < self.settings.end_ms:
            return []
        tables = seat_waiting(list(self.waiting.items()), self.tally.records, self.last_opponents,
                              self.settings.seats, now_ms, self.settings.bots_after_ms)
        for table in tables:
            for player in filter(None, table):
                del self.waiting[player]
                self.playing.add(player)
        return tables

    def ranked(self) -> list[Record]:
        rows = list(self.tally.records.values())
        rows.sort(key=lambda r: (-r.points, -r.game_score, -r.seed, r.player))
        return rows

    def standings(self) -> list[Standing]:
        """The arena's order (`ranked`) as every surface shows it: equal points and game score share a rank;
        Buchholz is shown but breaks no tie here (an arena's opponents are whoever was free)."""
        out: list[Standing] = []
        for i, r in enumerate(self.ranked()):
            tied = out and (out[-1].points, out[-1].game_score) == (r.points, r.game_score)
            out.append(Standing(out[-1].rank if tied else i + 1, r.player, r.points, self.tally.buchholz(r.player),
                                r.game_score, r.games, r.byes, r.withdrawn))
        return out


def seat_waiting(waiting: Sequence[tuple[str, int]], records: dict[str, Record],
                 last: dict[str, frozenset[str]], seats: int, now_ms: int,
                 bots_after_ms: int | None) -> list[tuple[str | None, ...]]:
    """Tables from the queue: anchors longest-waiting first, each with the free players nearest it in the
    standings (a doubly linked list over the standings order, so a pass costs about w log w)."""
    if not waiting:
        return []
    by_rank = sorted((p for p, _ in waiting),
                     key=lambda p: (-records[p].points, -records[p].game_score, -records[p].seed, p))
    pos = {p: i for i, p in enumerate(by_rank)}
    n = len(by_rank)
    prev = list(range(-1, n - 1))
    nxt = list(range(1, n + 1))

    def unlink(i: int) -> None:
        if prev[i] >= 0:
            nxt[prev[i]] = nxt[i]
        if nxt[i] < n:
            prev[nxt[i]] = prev[i]

    free = n
    tables: list[tuple[str | None, ...]] = []
    anchors = sorted(waiting, key=lambda pw: (pw[1], pos[pw[0]]))
    taken = [False] * n
    for anchor, since in anchors:
        a = pos[anchor]
        if taken[a]:
            continue
        with_bots = bots_after_ms is not None and now_ms - since >= bots_after_ms
        if free < seats and not with_bots:
            continue
        members = _members(a, _nearest(a, prev, nxt, n, seats - 1 + REMATCH_LOOKAHEAD), by_rank, last, seats)
        if len(members) < seats - 1 and not with_bots:
            continue
        table = [a, *members]
        for i in table:
            taken[i] = True
            unlink(i)
        free -= len(table)
        tables.append(tuple(by_rank[i] for i in table) + (None,) * (seats - len(table)))
    return tables


def _members(a: int, near: list[int], by_rank: list[str], last: dict[str, frozenset[str]],
             seats: int) -> list[int]:
    """Up to seats-1 of `near` (nearest first) for the anchor `a`: first those who sat at the last table of nobody
    chosen so far, then, if too few, the nearest of the rest."""
    chosen = [a]
    empty: frozenset[str] = frozenset()
    for i in near:
        if len(chosen) == seats:
            break
        player = by_rank[i]
        if not any(player in last.get(by_rank[c], empty) for c in chosen):
            chosen.append(i)
    for i in near:
        if len(chosen) == seats:
            break
        if i not in chosen:
            chosen.append(i)
    return sorted(chosen[1:], key=lambda i: abs(i - a))


def _nearest(a: int, prev: list[int], nxt: list[int], n: int, count: int) -> list[int]:
    """Up to `count` free positions other than `a`, nearest to it in the standings first."""
    out: list[int] = []
    left, right = prev[a], nxt[a]
    while len(out) < count and (left >= 0 or right < n):
        if right >= n or (left >= 0 and a - left <= right - a):
            out.append(left)
            left = prev[left]
        else:
            out.append(right)
            right = nxt[right]
    return out
