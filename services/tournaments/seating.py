"""Seat players at tables of N in standings order without repeat opponents where possible (pure).

Why a bounded search: Swiss pairing at tables is a partition problem; chess pairs two at a time, here a table of
four must be four players none of whom met another before. Players are taken in standings order; each table is
anchored by the best player not yet seated and filled with the next players down the standings who met nobody
at the table (first fit, so tables hold players of near standings, as a Monrad Swiss does). When the tail
cannot be filled, the search goes back and tries the next candidates (depth-first, members in standings order so
no table is tried twice). A budget of candidate checks bounds it; once spent (chronological backtracking thrashes
on a crowded tail), the tables are filled greedily with the fewest repeats and then repaired by swaps: a player
met at its table trades places with a player of the nearest table where the swap lowers the repeats. On small
events the budget covers the whole search, so a repeat-free seating is found whenever one exists
(tests/tournaments check this against a brute force).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence, Set

#: candidate checks the depth-first search may spend before the greedy fallback, plus 20 per player
DEFAULT_BUDGET = 50_000
#: how many times the repair walks over the tables with a repeat
REPAIR_PASSES = 4
#: how far down the standings the greedy fallback looks for a player who met nobody at the table
GREEDY_WINDOW = 64


def seat_tables(order: Sequence[str], met: Mapping[str, Set[str]], size: int,
                budget: int | None = None) -> list[tuple[str, ...]]:
    """Partition `order` (best first; its length a multiple of `size`) into tables of `size`."""
    n = len(order)
    if n % size:
        raise ValueError(f"{n} players do not fill tables of {size}")
    if n == 0:
        return []
    limit = DEFAULT_BUDGET + 20 * n if budget is None else budget
    found = _search(order, met, size, limit)
    return found if found is not None else _repair(_greedy(order, met, size), met)


def repeats(tables: Sequence[Sequence[str | None]], met: Mapping[str, Set[str]]) -> int:
    """Pairs seated together at a table who met before."""
    count = 0
    for table in tables:
        humans = [p for p in table if p is not None]
        count += sum(1 for i, a in enumerate(humans) for b in humans[i + 1:] if b in met.get(a, ()))
    return count


def _search(order: Sequence[str], met: Mapping[str, Set[str]], size: int, budget: int) -> list[tuple[str, ...]] | None:
    """Depth-first, iterative (10,000 players are 10,000 levels deep): None if the budget runs out."""
    n = len(order)
    index = {p: i for i, p in enumerate(order)}
    # met as index sets, only the players in this round
    foes = [frozenset(index[o] for o in met.get(p, ()) if o in index) for p in order]
    seated = [False] * n
    chosen: list[int] = []          # seat by seat; table k is chosen[k*size:(k+1)*size]
    resume: list[int] = []          # per chosen seat: where to go on looking if it is undone
    checks = 0
    first = 0                       # every index below it is seated
    start = None                    # where to look for the next member (None: place an anchor)
    while len(chosen) < n:
        at = len(chosen) % size
        if at == 0:
            while first < n and seated[first]:
                first += 1
            chosen.append(first)
            resume.append(n)        # an anchor has no alternative: undoing it undoes the table before
            seated[first] = True
            start = None
            continue
        table = chosen[len(chosen) - at:]
        i = table[-1] + 1 if start is None else start
        start = None
        picked = -1
        while i < n:
            if not seated[i]:
                checks += 1
                if checks > budget:
                    return None
                if not any(j in foes[i] for j in table):
                    picked = i
                    break
            i += 1
        if picked >= 0:
            chosen.append(picked)
            resume.append(picked + 1)
            seated[picked] = True
            continue
        # no member fits: undo seats until one has an untried candidate
        while True:
            if not chosen:
                return None
            last = chosen.pop()
            seated[last] = False
            first = min(first, last)
            nxt = resume.pop()
            if len(chosen) % size == 0:      # an anchor: undo it, and go on undoing the table before
                continue
            if nxt < n:
                start = nxt
                break
    return [tuple(order[i] for i in chosen[k:k + size]) for k in range(0, n, size)]


def _greedy(order: Sequence[str], met: Mapping[str, Set[str]], size: int) -> list[tuple[str, ...]]:
    """Each table: the best unseated player, then from the next GREEDY_WINDOW unseated ones the player with the
    fewest opponents at the table already, the better placed on a tie."""
    left = list(order)
    tables = []
    while left:
        table = [left.pop(0)]
        while len(table) < size:
            best, best_cost = 0, None
            for k, p in enumerate(left[:GREEDY_WINDOW]):
                seen = met.get(p, ())
                cost = sum(1 for q in table if q in seen)
                if best_cost is None or cost < best_cost:
                    best, best_cost = k, cost
                    if cost == 0:
                        break
            table.append(left.pop(best))
        tables.append(tuple(table))
    return tables


def _repair(tables: list[tuple[str, ...]], met: Mapping[str, Set[str]]) -> list[tuple[str, ...]]:
    """Swap players between tables, nearest tables first, while a swap lowers the repeats."""
    seats = [list(t) for t in tables]
    empty: frozenset[str] = frozenset()

    def clashes(player: str, table: list[str], leaving: str) -> int:
        seen = met.get(player, empty)
        return sum(1 for q in table if q != leaving and q != player and q in seen)

    for _ in range(REPAIR_PASSES):
        improved = False
        for k, table in enumerate(seats):
            for x in list(table):
                here = clashes(x, table, x)
                if here == 0:
                    continue
                for u in sorted(range(len(seats)), key=lambda u: (abs(u - k), u)):
                    if u == k:
                        continue
                    other = seats[u]
                    for z in other:
                        gain = here + clashes(z, other, z) - clashes(z, table, x) - clashes(x, other, z)
                        if gain > 0:
                            table[table.index(x)] = z
                            other[other.index(z)] = x
                            improved = True
                            break
                    else:
                        continue
                    break
        if not improved:
            break
    return [tuple(t) for t in seats]
