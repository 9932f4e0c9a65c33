"""OpenSky heuristic (rules: shared/rules/opensky.md). Reads only the seat's view.

Greedy decision rules, phase by phase (the phase is told by the legal actions):

- callsign (OS-4.2): the free airport with the most routes, plus two per route
  to an airport that already holds a callsign (direct markets are contested
  but also make nonstop itineraries possible); with `callsign_race`, a seat
  that does not draft first also avoids completing a route between two
  callsign airports, whose two cubes the first drafter would take (OS-7.2).
- aircraft placement (OS-6, OS-17.7): maximize subsidy cubes taken (50 each,
  OS-7) plus 40 x the gain in *network value*: over the 15 callsign pairs,
  1.0 for a nonstop, 0.5 for a one-stop, 0.2 for a two-stop path through the
  seat's own flights (extra tokens on a nonstop route add 0.3 each, as a win
  consumes one), each pair's gain halved where an opponent already flies it
  nonstop.
- hubs (OS-20): the airport through which the seat's own flights connect the
  most callsign pairs (one-stop); keep a hub unless another is strictly better.
- market (OS-8.4, roller): the pair where the seat's best itinerary class
  (nonstop 3, one-stop 2, longer 1, none 0) most exceeds the best opponent's.
- bid (OS-10/11): never pass (a losing card returns to the hand). With the
  fewest-stop itinerary: the highest fare that wins against every card any
  opponent could offer (OS-11.3, half-fare rule included); if none is safe,
  the fare maximizing fare x P(win or tie) with opponents' cards uniform over
  their (public, OS-1.5) hands. Where that fare is above the seat's lowest,
  it plays instead, uniformly with the bot's rng, any fare whose fare x P(win
  or tie) is within `bid_mix` points of the best: hands and itineraries are
  public, so a rule that reads only the view bids a fare every opponent can
  compute, and the bot's rng is keyed by the game's secret (the workers'
  `decision_seed`), which no opponent holds. A bid of the seat's lowest card
  stays: it is the worst case every rival must assume from the public hand
  anyway, and mixing it with dearer fares gave markets away (bench/RESULTS.md,
  "OpenSky: sealed bids an opponent cannot compute"). With `bid_solver`
  "regret" (opt-in; 2 players only), a contested bid instead solves the
  simultaneous bid game against the rival's public hand (`bid_game`: both
  seats valued alike, fare kept less the card's later worth, less the
  rival's gain) by regret matching (`regret_bid_strategy`) and draws the
  fare from the average strategy with the bot's rng. No level plays it: it
  gains against greedy only, and its bids can be computed from the view
  (research/2026-12-07-opensky-regret-bids).
- flash deal (OS-12): the highest lower card that makes the seat the sole
  provisional winner on the standing offers; otherwise decline.
  (`RuleParams` holds the weights and thresholds above; the defaults are
  this rule, the `fast` level plays the measured ones, its profile's `rule_params` (`ai/games/<game>.py`).)
- ancillaries (OS-14/15): the count k maximizing P(accept) x (fare + 100k)
  + (1 - P(accept)) x 0.3 x fare (a failed check returns the card to the hand,
  worth about a third of its value later), P from the price die (OS-2.3).
- lease (OS-17): only when the seat has no aircraft on the board and at least
  three months of the season remain: one aircraft, the cheapest payment.

MCTS cut-off evaluation: projected final score = current score (OS-19.2)
+ 0.35 x the network's income for the rest of the season (per callsign pair,
330 to a sole best itinerary class, 250 shared among tied best classes, over
15 pairs, per remaining month, capped at 250 per aircraft on the board and
per month) + 35 per subsidy cube still on the board, shared equally. The
scale shrinks from 250 points at the start to 60 in March. Random rollouts
are cut after 6 decisions: random players build no network and rarely win a
market, so longer rollouts only add noise (measured: see bench/RESULTS.md).
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ai.heuristics import Heuristic
from engine.core import Action, State
from engine.opensky.constants import FARES
from engine.opensky.pricing import market_winners

PRICE_DIE = (200, 300, 400, 500, 600, 700)
CLASS = {0: 3, 1: 2}
#: Share of the network's optimistic income counted in the projection: wins consume
#: tokens and rivals contest markets, and points in hand must outweigh points hoped for.
NETWORK_WEIGHT = 0.35  # stops -> itinerary class; 2+ stops -> 1


@dataclass(frozen=True, slots=True)
class RuleParams:
    """The decision rule's weights. The defaults are the `greedy` level's rule, described above."""

    cube: float = 50.0  #: placement: points per subsidy cube taken
    network: float = 40.0  #: placement: points per unit of network value gained
    nonstop: float = 1.0  #: network value of a callsign pair flown nonstop
    one_stop: float = 0.5
    longer: float = 0.2  #: two or three stops
    extra_nonstop: float = 0.3  #: per extra token on a pair's nonstop route
    contested: float = 0.5  #: factor on a pair an opponent flies nonstop
    callsign_near: float = 2.0  #: callsign: weight of routes to airports already holding a callsign
    market_rival: float = 1.0  #: market: weight of the best opponent's itinerary class
    market_own: float = 0.1  #: market: extra weight of the seat's own class
    anc_fail: float = 0.3  #: ancillaries: worth of a fare card returned to the hand, per point
    lease_board_max: int = 0  #: lease only with at most this many aircraft on the board
    lease_months_min: int = 3  #: ... and at least this many months of the season left
    lease_aircraft: int = 1  #: how many aircraft to lease then (at most)
    lease_pay_high: int = 0  #: lease: pay with the dearest won cards (1) rather than the cheapest (0)
    hub_keep: float = 0.5  #: hubs: bonus for keeping a current hub over an equal new one
    bid_power: float = 1.0  #: bid without a safe fare: maximise fare x P(win) ** bid_power
    bid_safe: int = 1  #: bid: take the highest fare no rival card can beat when there is one (0: always the above)
    #: bid against a rival, where the fare above is not the seat's lowest: play, uniformly with the bot's rng, any fare
    #: whose fare x P(win) is within this many points of the best (0: the one fare above, which any opponent
    #: computes from its own view)
    bid_mix: float = 80.0
    flash_min_fare: int = 0  #: flash deal: spend the token only on a fare of at least this much
    #: callsign, for a seat that does not draft first: cost, in the score's units (routes), of each route joining
    #: two callsign airports that the placement adds to their pairing (`pairing_size`). One aircraft on such a
    #: route takes two subsidy cubes (OS-7.2) and the seat that drafts first (seat 1, OS-6.3) places before any
    #: other, so a pair another seat completes is a pair handed to it (0: the race is not weighed)
    callsign_race: float = 0.0
    #: contested 2-player bid: "rule" plays the fare above; "regret" solves the simultaneous bid game against the
    #: rival's public hand by regret matching (`regret_bid_strategy`) and draws the fare from its average strategy
    bid_solver: str = "rule"
    bid_iterations: int = 300  #: regret: iterations of regret matching
    bid_later: float = 0.0  #: regret: share of the hand's later worth (its best cards for the months left) counted
    bid_rival: float = 1.0  #: regret: weight of the other seat's gain in a seat's payoff (1: the zero-sum game)
    #: regret: play instead, uniformly with the bot's rng, any fare whose payoff against the rival's average strategy
    #: is within this many points of the best fare's (0: draw from the seat's own average strategy)
    bid_regret_mix: float = 0.0


def _routes(view: dict[str, Any]) -> list[tuple[str, str]]:
    return [tuple(r["route"].split("-")) for r in view["board"]["routes"]]  # type: ignore[misc]


def pairing_size(airports: set[str], routes: list[tuple[str, str]]) -> int:
    """The most disjoint routes joining two of `airports` (at most three over six callsign airports): how many
    single aircraft can each take two subsidy cubes (OS-7.2)."""
    inner = [(a, b) for a, b in routes if a in airports and b in airports]
    for size in range(min(3, len(airports) // 2), 0, -1):
        for combo in itertools.combinations(inner, size):
            ends = [x for route in combo for x in route]
            if len(set(ends)) == len(ends):
                return size
    return 0


def _flights(player: dict[str, Any]) -> dict[tuple[str, str], int]:
    return {tuple(code.split("-")): n for code, n in player["aircraft"].items()}  # type: ignore[misc]


def _best_stops(flights: dict[tuple[str, str], int], a: str, b: str, hubs: list[str] | None) -> int | None:
    """Fewest stops between a and b over the flights (hubs: Europe connecting rule, None = any)."""
    adj: dict[str, list[str]] = {}
    for (x, y), n in flights.items():
        if n:
            adj.setdefault(x, []).append(y)
            adj.setdefault(y, []).append(x)
    frontier = {a}
    seen = {a}
    for stops in range(4):
        nxt = set()
        for node in sorted(frontier):
            for m in adj.get(node, []):
                if m == b:
                    return stops
                if m not in seen and (hubs is None or m in hubs):
                    seen.add(m)
                    nxt.add(m)
        frontier = nxt
        if not frontier:
            return None
    return None


def _pairs(view: dict[str, Any]) -> list[tuple[str, str]]:
    airports = sorted(view["callsigns"].values())
    return list(itertools.combinations(airports, 2))


def _distances(flights: dict[tuple[str, str], int], sources: list[str]) -> dict[str, dict[str, int]]:
    """Flights needed from each source to every airport within 4 flights, over the seat's own flights
    (any connection)."""
    adj: dict[str, list[str]] = {}
    for (x, y), n in flights.items():
        if n:
            adj.setdefault(x, []).append(y)
            adj.setdefault(y, []).append(x)
    out = {}
    for source in sources:
        dist = {source: 0}
        frontier = [source]
        for d in range(1, 5):
            nxt = []
            for node in frontier:
                for m in adj.get(node, ()):
                    if m not in dist:
                        dist[m] = d
                        nxt.append(m)
            frontier = nxt
        out[source] = dist
    return out


def _pair_value(
    flights: dict[tuple[str, str], int], a: str, b: str, legs: int | None, contested: bool, params: RuleParams
) -> float:
    """One callsign pair's worth to the network (greedy: 1.0 nonstop, +0.3 per extra token as a win
    consumes one, 0.5 one-stop, 0.2 for two or three stops; halved where an opponent flies it nonstop)."""
    if legs is None or legs > 4:
        return 0.0
    value = params.nonstop if legs == 1 else params.one_stop if legs == 2 else params.longer
    if legs == 1:
        value += params.extra_nonstop * (flights.get((a, b), flights.get((b, a), 0)) - 1)
    if contested:
        value *= params.contested
    return value


def _network_values(
    view: dict[str, Any],
    flights: dict[tuple[str, str], int],
    opp_nonstop: set,
    routes: list[tuple[str, str]],
    params: RuleParams,
) -> tuple[float, list[float]]:
    """The network value of `flights` and of `flights` plus one more token on each of `routes`.

    Adding one flight (u, v) can only shorten a pair's path through it, so the new distance is
    min(d(a, b), d(a, u) + 1 + d(v, b), d(a, v) + 1 + d(u, b)): one breadth-first search per
    callsign instead of one per pair and candidate, with the same values term by term."""
    pairs = _pairs(view)
    dist = _distances(flights, sorted(view["callsigns"].values()))
    far = 99
    rows = []  # per pair: its distances from both ends, legs now, value now, whether contested
    base = 0.0
    for a, b in pairs:
        legs = dist[a].get(b)
        contested = (a, b) in opp_nonstop
        value = _pair_value(flights, a, b, legs, contested, params)
        base += value
        rows.append((a, b, dist[a], dist[b], far if legs is None else legs, value, contested))
    values = []
    for u, v in routes:
        total = 0.0
        for a, b, da, db, legs, value, contested in rows:
            if (u == a and v == b) or (u == b and v == a):  # a token on the pair's own route
                trial = dict(flights)
                trial[(u, v)] = trial.get((u, v), 0) + 1
                value = _pair_value(trial, a, b, 1, contested, params)
            elif legs > 1:  # a nonstop pair cannot get shorter
                via = min(da.get(u, far) + 1 + db.get(v, far), da.get(v, far) + 1 + db.get(u, far))
                if via < legs:
                    value = _pair_value(flights, a, b, via, contested, params)
            total += value
        values.append(total)
    return base, values


def _hubs(view: dict[str, Any], player: dict[str, Any]) -> list[str] | None:
    return list(player["hubs"]) if view["map"] == "europe" else None


def _class(stops: int | None) -> int:
    if stops is None:
        return 0
    return CLASS.get(stops, 1)


def _mixed_fare(fare: int, expected: dict[int, float], params: RuleParams, rng: random.Random) -> int:
    """The rule's `fare` if it is the seat's lowest (or `bid_mix` is 0), else one of the fares whose expectation is
    within `bid_mix` points of the best, uniformly by `rng` (OS-10.1: a sealed bid must not be computable from the
    opponents' views, and the bot's rng is the one thing they lack)."""
    if params.bid_mix <= 0 or fare == min(expected):
        return fare
    least = max(expected.values()) - params.bid_mix - 1e-9
    near = sorted({f for f, value in expected.items() if value >= least} | {fare})
    return near[0] if len(near) == 1 else rng.choice(near)


def _later_cost(hand: list[int], card: int, months: int, params: RuleParams) -> float:
    """What spending `card` takes from the hand's later worth: `bid_later` x the drop in the sum of the hand's
    `months` dearest cards (at most one bid a month is left for each month after this one)."""
    if params.bid_later <= 0 or months <= 0:
        return 0.0
    rest = list(hand)
    if card in rest:
        rest.remove(card)
    best = sorted(hand, reverse=True)[:months]
    after = sorted(rest, reverse=True)[:months]
    return params.bid_later * (sum(best) - sum(after))


def _sole_win(fare: int, tokens: int, params: RuleParams) -> tuple[float, float]:
    """(expected points, P(the price check passes)) of a sole win at `fare` with the ancillaries the rule then
    attaches (`OpenSkyHeuristic._ancillaries`, OS-14/15) out of `tokens` unused ones."""
    best = (float(fare), 0, 1.0)  # (the rule's value, -k, P(accept))
    for k in range(1, min(3, tokens) + 1):
        price = fare + 100 * k
        p = sum(1 for face in PRICE_DIE if face >= price) / len(PRICE_DIE)
        value = p * price + (1 - p) * params.anc_fail * fare
        if (value, -k) > best[:2]:
            best = (value, -k, p)
    _, neg_k, p = best
    return p * (fare - 100 * neg_k), p


def bid_game(view: dict[str, Any], me: tuple[int, int, list[int]], rival: tuple[int, int, list[int]],
             params: RuleParams) -> tuple[list[list[float]], list[list[float]]]:
    """The simultaneous sealed bid (OS-10/11) between two seats, each `(seat, stops, fares)`: the payoff matrices
    of `me` (rows: its fares) and of `rival` (columns: its fares), valued the same way for both. A seat's gain is
    the fare it keeps as points (a sole winner's with the ancillaries the rule attaches, OS-14/15; a failed price
    check hands the market to the other offer) less `bid_later` x the card's worth to its hand later; its payoff
    is its gain less `bid_rival` x the other's. Losing costs nothing directly: the card returns to the hand."""
    months = 12 - int(view.get("month", 12))
    players = view["players"]
    seats = (me[0], rival[0])
    hands = [list(players[s]["hand"]) for s in seats]
    tokens = [int(players[s].get("ancillary_unused", 0)) for s in seats]
    mine: list[list[float]] = []
    theirs: list[list[float]] = []
    for f in me[2]:
        row_me = []
        row_them = []
        for g in rival[2]:
            won = winners([(seats[0], f, me[1]), (seats[1], g, rival[1])])
            gain = [0.0, 0.0]
            cards = (f, g)
            if len(won) == 2:
                for i in (0, 1):
                    gain[i] = cards[i] - _later_cost(hands[i], cards[i], months, params)
            elif won:
                w = 0 if won[0] == seats[0] else 1
                points, accept = _sole_win(cards[w], tokens[w], params)
                gain[w] = points - accept * _later_cost(hands[w], cards[w], months, params)
                o = 1 - w
                gain[o] = (1 - accept) * (cards[o] - _later_cost(hands[o], cards[o], months, params))
            row_me.append(gain[0] - params.bid_rival * gain[1])
            row_them.append(gain[1] - params.bid_rival * gain[0])
        mine.append(row_me)
        theirs.append(row_them)
    return mine, theirs


_SOLVED: dict[tuple, tuple[list[float], list[float]]] = {}


def regret_bid_strategy(mine: list[list[float]], theirs: list[list[float]],
                        iterations: int = 300) -> tuple[list[float], list[float]]:
    """The average strategies of regret matching (RM+, alternating updates, linearly weighted averages, as in
    CFR+) on the two-player game whose payoffs are `mine[i][j]` to the row player and `theirs[i][j]` to the column
    player. Deterministic; in a zero-sum game the averages approach an equilibrium. Cached by the game."""
    key = (iterations, tuple(map(tuple, mine)), tuple(map(tuple, theirs)))
    solved = _SOLVED.get(key)
    if solved is not None:
        return solved
    live_r, live_c = _undominated(mine, theirs)
    sub_r, sub_c = _regret_matching([[mine[i][j] for j in live_c] for i in live_r],
                                    [[theirs[i][j] for j in live_c] for i in live_r], iterations)
    row = [0.0] * len(mine)
    col = [0.0] * len(mine[0])
    for i, p in zip(live_r, sub_r):
        row[i] = p
    for j, p in zip(live_c, sub_c):
        col[j] = p
    if len(_SOLVED) > 50_000:
        _SOLVED.clear()
    _SOLVED[key] = (row, col)
    return row, col


def _undominated(mine: list[list[float]], theirs: list[list[float]]) -> tuple[list[int], list[int]]:
    """The rows and columns left by iterated elimination of strictly dominated pure strategies (each player's
    strategy worse than another of its own against every strategy the other has left): no equilibrium plays
    them, and regret matching then runs on the smaller game."""
    live_r = list(range(len(mine)))
    live_c = list(range(len(mine[0])))
    changed = True
    while changed:
        changed = False
        for i in list(live_r):
            if any(all(mine[k][j] > mine[i][j] for j in live_c) for k in live_r if k != i):
                live_r.remove(i)
                changed = True
        for j in list(live_c):
            if any(all(theirs[i][k] > theirs[i][j] for i in live_r) for k in live_c if k != j):
                live_c.remove(j)
                changed = True
    return live_r, live_c


def _regret_matching(mine: list[list[float]], theirs: list[list[float]],
                     iterations: int) -> tuple[list[float], list[float]]:
    rows, cols = len(mine), len(mine[0])
    if rows == 1 or cols == 1:  # a player with one strategy left: the other best-responds to it
        if rows == 1:
            best = max(theirs[0])
            col = [1.0 if v == best else 0.0 for v in theirs[0]]
            return [1.0], [c / sum(col) for c in col]
        column = [r[0] for r in mine]
        best = max(column)
        row = [1.0 if v == best else 0.0 for v in column]
        return [r / sum(row) for r in row], [1.0]
    regret_r = [0.0] * rows
    regret_c = [0.0] * cols
    sum_r = [0.0] * rows
    sum_c = [0.0] * cols
    by_col = [list(col) for col in zip(*theirs)]

    def policy(regret: list[float]) -> list[float]:
        total = sum(regret)
        return [r / total for r in regret] if total > 0 else [1.0 / len(regret)] * len(regret)

    for t in range(1, max(1, iterations) + 1):
        y = policy(regret_c)
        values = [sum(a * b for a, b in zip(row, y)) for row in mine]
        x = policy(regret_r)
        mean = sum(a * b for a, b in zip(x, values))
        regret_r = [max(0.0, r + v - mean) for r, v in zip(regret_r, values)]
        x = policy(regret_r)
        sum_r = [s + t * p for s, p in zip(sum_r, x)]
        values = [sum(a * b for a, b in zip(col, x)) for col in by_col]
        mean = sum(a * b for a, b in zip(y, values))
        regret_c = [max(0.0, r + v - mean) for r, v in zip(regret_c, values)]
        sum_c = [s + t * p for s, p in zip(sum_c, y)]
    return [s / sum(sum_r) for s in sum_r], [s / sum(sum_c) for s in sum_c]


def _draw(weights: list[float], rng: random.Random, floor: float = 0.01) -> int:
    """An index drawn by `rng` with probability proportional to `weights`, ignoring those below `floor` (the
    residue of regret matching's early iterations); the dearest weight when only one is left."""
    kept = [w if w >= floor else 0.0 for w in weights]
    if sum(kept) <= 0:
        return max(range(len(weights)), key=lambda i: weights[i])
    if sum(1 for w in kept if w > 0) == 1:
        return next(i for i, w in enumerate(kept) if w > 0)
    point = rng.random() * sum(kept)
    for i, w in enumerate(kept):
        point -= w
        if point < 0 and w > 0:
            return i
    return max(i for i, w in enumerate(kept) if w > 0)


def winners(offers: list[tuple[int, int, int]]) -> list[int]:
    """Who wins among hypothetical (seat, fare, stops) offers: the engine's own OS-11.3 rule,
    after OS-9.4 drops itineraries longer than the shortest kind at the table."""
    if not offers:
        return []
    shortest = min(stops for _, _, stops in offers)
    limit = 1 if shortest <= 1 else shortest
    return market_winners([o for o in offers if o[2] <= limit])


class OpenSkyHeuristic(Heuristic):
    game = "opensky"
    max_rollout_depth = 6
    #: Sealed bids are left to the rule below (best fare against every card a rival could play, or the
    #: best expected fare): at 1,000 iterations MCTS won 14 of 30 paired 2-player games against greedy
    #: with it and 11 without (15.5 and 13 with the fitted evaluation; bench/RESULTS.md). Playing every
    #: seat's bids by the rule inside the tree as well (`SearchConfig.rule_in_tree`) won 31.5 of 48 paired
    #: games against 25.5 for the root alone.
    rule_kinds = frozenset({"bid"})
    #: A longer search plays OpenSky worse: it overrules the greedy rule more often (leases: 17% of
    #: sampled decisions at 1,000 iterations, 34% at 3,000), on errors of the fitted evaluation. Against
    #: greedy in the same 48 two-player games `mcts-normal` won 31.5 at 1,000 iterations and 23.0 at its
    #: full second (about 3,300); at 500 / 1,000 / 2,000 iterations 24.0 / 24.5 / 22.5 of 40 others
    #: (bench/RESULTS.md, fifth session).
    max_search_iterations = 1000

    def __init__(self, params: RuleParams | None = None):
        self.params = params or RuleParams()

    def projected_scores(self, state: State) -> list[float]:
        """Score now + expected fares from the network for the rest of the season + open cubes.

        Reads the determinized state's fields directly (this runs once per MCTS
        iteration; building a view would cost more than the search step).
        """
        st: Any = state
        scores = [float(x) for x in state.scores()]
        players = len(scores)
        free = sum(1 for o in st.cube_owner if o < 0)
        network = self._network(st)
        if network is None:
            return [x + 35.0 * free / players for x in scores]
        income = network[0]
        return [scores[s] + NETWORK_WEIGHT * income[s] + 35.0 * free / players for s in range(players)]

    @staticmethod
    def _network(st: Any) -> tuple[list[float], list[list[int]]] | None:
        """Per seat, the network's expected fares for the rest of the season (capped by its aircraft)
        and its itinerary class per callsign pair; None before the callsigns are out or after the season."""
        players = st.num_players
        callsigns = st.callsigns
        if len(callsigns) < 6:
            return None
        month = st.month
        months_left = (8 - month) if month <= 7 else (13 - month)
        if st.phase in ("lease", "lease_place"):
            months_left -= 1
        if months_left <= 0:
            return None
        pair_route = _pair_routes(st.board)
        adj = st.board.adj
        tokens = st.tokens
        hubs = st.hubs if st.europe else None
        levels = [[0] * 15 for _ in range(players)]
        for s in range(players):
            if not st.on_board[s]:
                continue
            mine = tokens[s]
            hub_set = None if hubs is None else hubs[s]
            for i, (a, b) in enumerate(_callsign_pairs(callsigns)):
                r = pair_route.get((a, b))
                if r is not None and mine[r]:
                    levels[s][i] = 3
                    continue
                for c, r1 in adj[a]:
                    if mine[r1] and (hub_set is None or c in hub_set or st.phase == "draft"):
                        r2 = pair_route.get((c, b) if c < b else (b, c))
                        if r2 is not None and mine[r2]:
                            levels[s][i] = 2
                            break
        out = []
        for s in range(players):
            income = 0.0
            for i in range(15):
                mine = levels[s][i]
                if not mine:
                    continue
                best = max(levels[t][i] for t in range(players))
                if mine == best:
                    ties = sum(1 for t in range(players) if levels[t][i] == best)
                    income += (330.0 if ties == 1 else 250.0) / ties
            monthly = income / 15.0
            cap = 250.0 * min(st.on_board[s], months_left)
            out.append(min(monthly * months_left, cap))
        return out, levels

    #: Per-seat features for the fitted win model (`ai.learned`).
    FEATURES = (
        "score",
        "network_income",
        "nonstop_pairs",
        "one_stop_pairs",
        "aircraft_on_board",
        "hand_fares",
        "ancillaries_left",
        "flash_token",
        "subsidy_cubes",
    )

    def features(self, state: State) -> list[list[float]]:
        """The projection's parts kept apart, and what it leaves out: the fare cards still in hand (what
        the seat can still bid with), its ancillary and flash-deal resources, and its network's shape."""
        st: Any = state
        scores = state.scores()
        network = self._network(st)
        out = []
        for s in range(st.num_players):
            income, nonstop, one_stop = 0.0, 0, 0
            if network is not None:
                income = network[0][s]
                nonstop = sum(1 for x in network[1][s] if x == 3)
                one_stop = sum(1 for x in network[1][s] if x == 2)
            hand = sum(n * fare for n, fare in zip(st.hand[s], FARES, strict=True))
            out.append([
                float(scores[s]), income, float(nonstop), float(one_stop), float(st.on_board[s]),
                float(hand), float(st.anc[s]), 1.0 if st.flash_token[s] else 0.0, float(st.cubes[s]),
            ])
        return out

    def scale(self, state: State) -> float:
        month = getattr(state, "month", 6)
        return 60.0 + 190.0 * (12 - month) / 11

    def choose(self, state: State, seat: int, actions: list[Action], rng: random.Random) -> Action:
        kind = actions[-1].TYPE
        view = self._view(state, seat)
        scoring = self._SCORED.get(kind)
        if scoring is not None:
            return _argmax(actions, scoring(self, view, seat, actions), rng)
        rule = {
            "bid": self._bid,
            "flash_deal": self._flash,
            "add_ancillaries": self._ancillaries,
            "lease": self._lease,
        }.get(kind)
        if rule is None:
            return super().choose(state, seat, actions, rng)
        return rule(view, seat, actions, rng)

    def ranked(self, state: State, seat: int, actions: list[Action], rng: random.Random) -> list[Action]:
        """The rule's choice, then the rest by the rule's score where it scores candidates (callsigns,
        placements, hubs, markets); otherwise the rule's choice, then legal order."""
        first = self.choose(state, seat, actions, rng)
        scoring = self._SCORED.get(actions[-1].TYPE)
        rest = [a for a in actions if a != first]
        if scoring is not None:
            value = scoring(self, self._view(state, seat), seat, actions)
            rest.sort(key=value, reverse=True)
        elif first.TYPE == "lease":  # fewest aircraft first, then the cheapest payment
            rest.sort(key=lambda a: (a.aircraft, sum(a.cards), a.cards))
        return [first, *rest]

    @staticmethod
    def _view(state: State, seat: int) -> dict[str, Any]:
        view = state.view(seat)
        if "board" not in view:  # static boards are described once by the game, by map name
            view["board"] = _static_board(state, view["map"])
        return view

    # -- setup and network -------------------------------------------------------------

    def _callsign(self, view, seat, actions) -> Callable[[Action], float]:
        routes = _routes(view)
        taken = set(view["callsigns"].values())
        degree: dict[str, int] = {}
        near: dict[str, int] = {}
        for a, b in routes:
            degree[a] = degree.get(a, 0) + 1
            degree[b] = degree.get(b, 0) + 1
            if b in taken:
                near[a] = near.get(a, 0) + 1
            if a in taken:
                near[b] = near.get(b, 0) + 1
        near_weight = self.params.callsign_near
        race = self.params.callsign_race
        if race and seat != 0:  # the first drafter (seat 0) takes the paired cubes before this seat places
            paired = pairing_size(taken, routes)
            return lambda x: (degree.get(x.airport, 0) + near_weight * near.get(x.airport, 0)
                              - race * (pairing_size(taken | {x.airport}, routes) - paired))
        return lambda x: degree.get(x.airport, 0) + near_weight * near.get(x.airport, 0)

    def _placement(self, view, seat, actions) -> Callable[[Action], float]:
        me = view["players"][seat]
        flights = _flights(me)
        opp_nonstop = set()
        for p in view["players"]:
            if p["seat"] != seat:
                for (a, b), n in _flights(p).items():
                    if n:
                        opp_nonstop.add((a, b) if a < b else (b, a))
        routes = [tuple(action.route.split("-")) for action in actions]
        params = self.params
        base, gains = _network_values(view, flights, opp_nonstop, routes, params)  # type: ignore[arg-type]
        free_cubes = {code for code, owner in view["subsidy_cubes"].items() if owner < 0}
        values = {}
        for action, (a, b), total in zip(actions, routes, gains, strict=True):
            cubes = (a in free_cubes) + (b in free_cubes)
            values[action] = params.cube * cubes + params.network * (total - base)

        return values.__getitem__

    def _hub(self, view, seat, actions) -> Callable[[Action], float]:
        me = view["players"][seat]
        flights = _flights(me)
        pairs = _pairs(view)

        def through(hub: str) -> int:
            legs = {b if a == hub else a for (a, b), n in flights.items() if n and hub in (a, b)}
            return sum(1 for x, y in pairs if x in legs and y in legs and hub not in (x, y))

        current = me["hubs"]

        def value(action: Action) -> float:
            if action.TYPE == "keep_hub":
                return max((through(h) for h in current), default=0) + self.params.hub_keep
            return float(through(action.airport))

        return value

    def _market(self, view, seat, actions) -> Callable[[Action], float]:
        players = view["players"]

        def level(p: dict[str, Any], a: str, b: str) -> int:
            return _class(_best_stops(_flights(p), a, b, _hubs(view, p)))

        def value(action: Action) -> float:
            a, b = action.origin, action.destination
            mine = level(players[seat], a, b)
            others = max((level(p, a, b) for p in players if p["seat"] != seat), default=0)
            return mine - self.params.market_rival * others + self.params.market_own * mine

        return value

    #: Decision kinds whose rule scores every candidate (the choice is the best score, ties at random).
    _SCORED = {
        "place_callsign": _callsign,
        "place_aircraft": _placement,
        "place_hub": _hub,
        "choose_market": _market,
    }

    # -- pricing --------------------------------------------------------------------------

    def _bid(self, view, seat, actions, rng) -> Action:
        bids = [a for a in actions if a.TYPE == "bid"]
        if not bids:
            return actions[0]
        stops = min(len(b.itinerary) - 2 for b in bids)
        mine = [b for b in bids if len(b.itinerary) - 2 == stops]
        fares = sorted({b.fare for b in mine})
        pricing = view.get("pricing", {})
        rivals = []
        for key, paths in pricing.get("valid_itineraries", {}).items():
            s = int(key)
            if s == seat or not paths:
                continue
            hand = sorted(set(view["players"][s]["hand"]))
            if hand:
                rivals.append((s, min(len(p) - 2 for p in paths), hand))
        if not rivals:
            fare = fares[-1]  # a lone bidder's fare concerns nobody else
        elif self.params.bid_solver == "regret" and len(rivals) == 1:
            fare = self._regret_fare(view, seat, stops, fares, rivals[0], rng)
        else:
            safe, expected = self._fare_odds(seat, stops, fares, rivals, self.params)
            fare = _mixed_fare(self._rule_fare(fares, safe, expected, self.params), expected, self.params, rng)
        choices = [b for b in mine if b.fare == fare]
        return choices[0]

    def _regret_fare(self, view, seat: int, stops: int, fares: list[int], rival: tuple[int, int, list[int]],
                     rng: random.Random) -> int:
        """A fare drawn by `rng` from the seat's side of the bid game against one rival (`bid_game`, solved by
        `regret_bid_strategy`): every card the rival holds (OS-1.5) against every fare the seat may bid."""
        other, other_stops, other_fares = rival
        mine, theirs = bid_game(view, (seat, stops, fares), (other, other_stops, other_fares), self.params)
        row, col = regret_bid_strategy(mine, theirs, self.params.bid_iterations)
        if self.params.bid_regret_mix > 0:
            values = [sum(v * q for v, q in zip(payoffs, col)) for payoffs in mine]
            least = max(values) - self.params.bid_regret_mix - 1e-9
            near = [f for f, v in zip(fares, values) if v >= least]
            return near[0] if len(near) == 1 else rng.choice(near)
        return fares[_draw(row, rng)]

    @classmethod
    def _best_fare(cls, seat: int, stops: int, fares: list[int], rivals: list[tuple[int, int, list[int]]],
                   params: RuleParams) -> int:
        """The rule's one best fare against `rivals` (before `bid_mix` mixes it with the near-equal ones)."""
        return cls._rule_fare(fares, *cls._fare_odds(seat, stops, fares, rivals, params), params)

    @staticmethod
    def _rule_fare(fares: list[int], safe: list[int], expected: dict[int, float], params: RuleParams) -> int:
        if safe and params.bid_safe:
            return max(safe)
        return max(fares, key=lambda f: (expected[f], -f))

    @staticmethod
    def _fare_odds(seat: int, stops: int, fares: list[int], rivals: list[tuple[int, int, list[int]]],
                   params: RuleParams) -> tuple[list[int], dict[int, float]]:
        """(the fares no rival card can beat, each fare's fare x P(win or tie) ** bid_power) with every rival's card
        uniform over the distinct fares of its public hand (OS-1.5)."""
        safe = []
        expected = {}
        for fare in fares:
            outcomes = 0
            good = 0
            for combo in itertools.product(*(r[2] for r in rivals)):
                offers = [(seat, fare, stops)] + [(r[0], f, r[1]) for r, f in zip(rivals, combo)]
                outcomes += 1
                if seat in winners(offers):
                    good += 1
            if good == outcomes:
                safe.append(fare)
            expected[fare] = fare * (good / outcomes) ** params.bid_power
        return safe, expected

    def _flash(self, view, seat, actions, rng) -> Action:
        offers = [(o["seat"], o["fare"], o["stops"]) for o in view["pricing"]["offers"]]
        best = actions[0]  # decline
        for action in actions:
            if action.TYPE != "flash_deal" or action.fare < self.params.flash_min_fare:
                continue
            trial = [(s, action.fare if s == seat else f, st) for s, f, st in offers]
            if winners(trial) == [seat] and (best.TYPE != "flash_deal" or action.fare > best.fare):
                best = action
        return best

    def _ancillaries(self, view, seat, actions, rng) -> Action:
        offers = {o["seat"]: o["fare"] for o in view["pricing"]["offers"]}
        fare = offers.get(seat, 200)

        def value(action: Action) -> float:
            k = action.tokens
            if k == 0:
                return float(fare)
            price = fare + 100 * k
            p = sum(1 for face in PRICE_DIE if face >= price) / len(PRICE_DIE)
            return p * price + (1 - p) * self.params.anc_fail * fare

        return max(actions, key=lambda a: (value(a), -a.tokens))

    def _lease(self, view, seat, actions, rng) -> Action:
        me = view["players"][seat]
        month = view["lease"]["month"]  # the month that ended (the view's "month" is already the next one)
        on_board = sum(me["aircraft"].values())
        months_left = (7 - month) if month <= 7 else (12 - month)
        params = self.params
        leases = [a for a in actions if a.TYPE == "lease" and 0 < a.aircraft <= params.lease_aircraft]
        if on_board <= params.lease_board_max and months_left >= params.lease_months_min and leases:
            pay = -1 if params.lease_pay_high else 1
            return min(leases, key=lambda a: (-a.aircraft, pay * sum(a.cards), a.cards))
        return actions[0]


_BOARDS: dict[str, dict[str, Any]] = {}
_PAIR_ROUTES: dict[str, dict[tuple[int, int], int]] = {}
_PAIRS: dict[tuple[int, ...], list[tuple[int, int]]] = {}


def _pair_routes(board: Any) -> dict[tuple[int, int], int]:
    """(low airport, high airport) -> route index, per board, built once."""
    table = _PAIR_ROUTES.get(board.name)
    if table is None:
        table = {(min(a, b), max(a, b)): r for r, (a, b) in enumerate(board.routes)}
        _PAIR_ROUTES[board.name] = table
    return table


def _callsign_pairs(callsigns: list[int]) -> list[tuple[int, int]]:
    key = tuple(callsigns)
    pairs = _PAIRS.get(key)
    if pairs is None:
        pairs = [(min(a, b), max(a, b)) for a, b in itertools.combinations(callsigns, 2)]
        if len(_PAIRS) > 10_000:
            _PAIRS.clear()
        _PAIRS[key] = pairs
    return pairs


def _static_board(state: State, name: str) -> dict[str, Any]:
    if name not in _BOARDS:
        _BOARDS[name] = state.game.describe()["boards"][name]
    return _BOARDS[name]


def _argmax(actions: list[Action], value, rng: random.Random) -> Action:
    scored = [(value(a), i) for i, a in enumerate(actions)]
    top = max(v for v, _ in scored)
    best = [actions[i] for v, i in scored if v >= top - 1e-9]
    return best[rng.randrange(len(best))]


HEURISTIC = OpenSkyHeuristic()
