"""Aeroplanes heuristic (rules: docs/rules/aeroplanes.md).

Projection of final VP, from a (determinized) state:
  VP so far
  + the era scoring as if the era ended now: majorities in the three markets
    and the profit ranking, with this era's VPs/Era amounts (AE-13);
  + half of the current majority awards again for every later era (airport
    tiles stay on the board, AE-13.2);
  + the game-end VP already earned: every bought aircraft card and every
    claimed passenger tile (AE-15.1);
  + 1 VP per airport tile still on an in-service aircraft card and 0.4 VP
    per free seat on one (what the aircraft will still place and carry);
  + 0.05 VP per pound (money only breaks ties at the end, AE-15.2; what it buys
    is valued through the cards and tiles bought).
The scale is 4 VP plus 6 per era still to be scored. MCTS rollouts are cut
after 8 random decisions (random play is far from real play here).

Greedy (`choose`): a *turn lookahead*. Many decisions only pay off at the end
of the seat's turn (choosing the action kind, then the card, tile, route and
dice decisions that follow), so each candidate is applied to a copy and the
rest of the seat's turn is completed by one-ply choices on the projection
(at most 6 more decisions, chance resolved by the copy's RNG); the candidate
whose completed turn has the best projected lead over the best rival wins.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from ai.heuristics import Heuristic, one_ply
from engine.core import Action, IllegalAction, State

MONEY_VP = 0.05
#: Worth of what a bought aircraft still offers: an airport tile waiting on it (a future airport:
#: majorities, America bonus) and a free seat (a future passenger: profit, tile VP).
TILE_VP = 1.0
SEAT_VP = 0.4
TURN_STEPS = 6


@dataclass(frozen=True)
class RuleParams:
    """The projection's and the lookahead's weights. The defaults are the `greedy` level's rule (above), which
    every search level's evaluation also uses; a level may play measured variants (`ai.heuristics.with_params`)."""

    money_vp: float = MONEY_VP  #: VP per pound
    tile_vp: float = TILE_VP  #: VP per airport tile waiting on an in-service aircraft card
    seat_vp: float = SEAT_VP  #: VP per free seat on one
    later_majority: float = 0.5  #: share of this era's majority awards counted again for every later era
    turn_steps: int = TURN_STEPS  #: most decisions of the seat's turn the lookahead completes
    #: most positions the lookahead projects in one decision (0: no limit; its work is actions x steps x follow-up
    #: actions, up to a quarter of a second in a long 3-player turn): actions are completed best first by their own
    #: projected margin until the count is spent, so only the longest turns are cut (a count, not a clock: the same
    #: decision on any machine)
    turn_work: int = 0


class AeroplanesHeuristic(Heuristic):
    game = "aeroplanes"
    max_rollout_depth = 8

    def __init__(self, params: RuleParams | None = None):
        self.params = params or RuleParams()

    def projected_scores(self, state: State) -> list[float]:
        st: Any = state
        if st.phase == "over":
            return [float(v) for v in st.vp]
        p = self.params
        later = 1 + p.later_majority * (3 - st.era)
        tile_vp, seat_vp, money_vp = p.tile_vp, p.seat_vp, p.money_vp
        return [
            vp + majority * later + end_vp + tile_vp * tiles + seat_vp * seats + money_vp * money + profit
            for vp, majority, end_vp, tiles, seats, money, profit in self._components(st)
        ]

    def _components(self, st: Any) -> list[tuple[float, float, float, float, float, float, float]]:
        """Per seat: VP so far, this era's majority awards if it ended now, game-end VP already earned
        (cards and tiles), airport tiles waiting on in-service cards, their free seats, money, and this
        era's profit award if it ended now."""
        t = _tables()
        players = st.num_players
        era = st.era
        region_of = t["region_of"]
        markets = t["markets"]
        counts = {m: [0] * players for m in markets}
        for d, slots in enumerate(st.slots):
            row = counts.get(region_of[d])
            if row is not None:
                for v in slots:
                    if v >= 0:
                        row[v >> 2] += 1
        majority_vp = t["majority_vp"][era - 1]
        majority = [0.0] * players
        for market, row in counts.items():
            first, second = majority_vp[market]
            for p, award in enumerate(t["majority_awards"](row, first, second)):
                majority[p] += award
        cap = t["tile_capacity"]
        tile_vp = t["tile_vp"]
        card_vp = t["card_vp"]
        profit = []
        rows = []
        for p in range(players):
            carried = free = 0
            vp = 0
            tiles = seats = 0
            for c in st.cards[p]:
                vp += card_vp[c[0]]
                load = 0
                for tile in c[5]:
                    load += cap[tile]
                    vp += tile_vp[tile]
                if c[1]:
                    carried += load
                    free += c[3] - load
                    tiles += c[4]
                    seats += c[3] - load
            for tile in st.set_aside[p]:
                vp += tile_vp[tile]
            profit.append(carried - free)
            rows.append([float(st.vp[p]), majority[p], float(vp), float(tiles), float(seats), float(st.money[p])])
        awards = t["profit_awards"](profit, t["profit_vp"][era - 1])
        return [
            (row[0], row[1], row[2], row[3], row[4], row[5], float(award))
            for row, award in zip(rows, awards, strict=True)
        ]

    #: Per-seat features for the fitted win model (`ai.learned`).
    FEATURES = (
        "vp",
        "majority_now",
        "majority_x_eras_left",
        "end_vp",
        "tiles_waiting",
        "free_seats",
        "money",
        "profit_award",
        "tiles_x_eras_left",
        "seats_x_eras_left",
    )

    def features(self, state: State) -> list[list[float]]:
        """The projection's parts kept apart, and the ones whose worth depends on the time left
        multiplied by the eras still to score, so a fit can weigh them by the stage of the game."""
        st: Any = state
        if st.phase == "over":
            return [[float(v)] + [0.0] * 9 for v in st.vp]
        left = float(3 - st.era)
        return [
            [vp, majority, majority * left, end_vp, tiles, seats, money, profit, tiles * left, seats * left]
            for vp, majority, end_vp, tiles, seats, money, profit in self._components(st)
        ]

    def scale(self, state: State) -> float:
        era = getattr(state, "era", 2)
        return 4.0 + 6.0 * (4 - era)

    def prior(self, state: State, seat: int, actions: list[Action], rng: random.Random) -> Action:
        """For the MCTS root: the same lookahead completing at most 2 more decisions of the turn."""
        return self.choose(state, seat, actions, rng, steps=2)

    def choose(
        self, state: State, seat: int, actions: list[Action], rng: random.Random, steps: int | None = None
    ) -> Action:
        limit = self.params.turn_steps if steps is None else steps
        best: list[Action] = []  # candidates tied for the best completed-turn margin
        best_value = float("-inf")
        work = self.params.turn_work
        spent = len(actions) if work else 0  # the ordering's projections
        for action in self._best_first(state, seat, actions) if work else actions:
            if work and spent >= work and best:
                break
            trial = state.clone()
            try:
                trial.apply(seat, action)
            except IllegalAction:  # pragma: no cover - legal_actions and apply disagree
                continue
            done = 0
            while not trial.is_over() and trial.to_act() == [seat] and done < limit:
                follow = trial.legal_actions(seat)
                if len(follow) > 1:
                    spent += len(follow)
                trial.apply(seat, follow[0] if len(follow) == 1 else one_ply(self, trial, seat, follow, rng))
                done += 1
            spent += 1
            value = self.margin(trial, seat)
            if value > best_value + 1e-9:
                best, best_value = [action], value
            elif abs(value - best_value) <= 1e-9:
                best.append(action)
        return best[rng.randrange(len(best))] if best else actions[0]

    def _best_first(self, state: State, seat: int, actions: list[Action]) -> list[Action]:
        """The actions by the projected margin right after each, best first (ties in legal order, so the choice
        stays a function of the position and the rng): the order a work limit completes them in."""
        values = []
        for index, action in enumerate(actions):
            trial = state.clone()
            try:
                trial.apply(seat, action)
            except IllegalAction:  # pragma: no cover - legal_actions and apply disagree
                continue
            values.append((-self.margin(trial, seat), index))
        return [actions[index] for _, index in sorted(values)]


_TABLES: dict[str, Any] = {}


def _tables() -> dict[str, Any]:
    """Static lookups built once from the engine's data: VP and capacity by id, regions, VP tables."""
    if not _TABLES:
        from engine.aeroplanes import model
        from engine.aeroplanes.data import DATA, MARKETS
        from engine.aeroplanes.era import CARDS, TILES
        from engine.aeroplanes.routes import REGION_OF
        from engine.aeroplanes.scoring import majority_awards, profit_awards

        # The projection indexes card fields by position; fail loudly if the layout moves.
        layout = (model.CARD_NUMBER, model.CARD_IN_SERVICE, model.CARD_BASE, model.CARD_TILES, model.CARD_PAX)
        assert layout == (0, 1, 3, 4, 5)
        _TABLES.update(
            card_vp=[0] + [c.vp for c in CARDS],
            tile_vp=[0] + [x.vp for x in TILES],
            tile_capacity=[0] + [x.capacity for x in TILES],
            region_of=REGION_OF,
            markets=tuple(MARKETS),
            majority_vp=DATA.majority_vp,
            profit_vp=DATA.profit_vp,
            majority_awards=majority_awards,
            profit_awards=profit_awards,
        )
    return _TABLES


HEURISTIC = AeroplanesHeuristic()
