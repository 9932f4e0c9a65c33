"""Aeroplanes heuristic (rules: shared/rules/aeroplanes.md).

Projection of final VP, from a (determinized) state:
  VP so far
  + the era scoring as if the era ended now: majorities in the three markets
    and the profit ranking, with this era's VPs/Era amounts (AE-13);
  + half of the current majority awards again for every later era (airport
    tiles stay on the board, AE-13.2);
  + the game-end VP already earned: every bought aircraft card and every
    claimed passenger tile (AE-15.1);
  + 0.05 VP per pound (money only breaks ties at the end, AE-15.2; what it buys
    is valued through the cards and tiles bought).
The scale is 4 VP plus 6 per era still to be scored.

Greedy (`choose`): a *turn lookahead*. Many decisions only pay off at the end
of the seat's turn (choosing the action kind, then the card, tile, route and
dice decisions that follow), so each candidate is applied to a copy and the
rest of the seat's turn is completed by one-ply choices on the projection
(at most 6 more decisions, chance resolved by the copy's RNG); the candidate
whose completed turn has the best projected lead over the best rival wins.
"""

from __future__ import annotations

import random
from typing import Any

from ai.heuristics import Heuristic, one_ply
from engine.core import Action, IllegalAction, State

MONEY_VP = 0.05
TURN_STEPS = 6


class AeroplanesHeuristic(Heuristic):
    game = "aeroplanes"

    def projected_scores(self, state: State) -> list[float]:
        from engine.aeroplanes.data import DATA
        from engine.aeroplanes.era import CARDS, TILES, market_counts, profits
        from engine.aeroplanes.model import CARD_NUMBER, CARD_PAX
        from engine.aeroplanes.scoring import majority_awards, profit_awards

        st: Any = state
        players = st.num_players
        out = [float(v) for v in st.vp]
        if st.phase == "over":
            return out
        era = st.era
        for market, counts in market_counts(st).items():
            first, second = DATA.majority_vp[era - 1][market]
            for p, award in enumerate(majority_awards(counts, first, second)):
                out[p] += award * (1 + 0.5 * (3 - era))
        for p, award in enumerate(profit_awards(profits(st), DATA.profit_vp[era - 1])):
            out[p] += award
        for p in range(players):
            hand = st.cards[p]
            out[p] += sum(CARDS[c[CARD_NUMBER] - 1].vp for c in hand)
            out[p] += sum(TILES[t - 1].vp for t in st.set_aside[p])
            out[p] += sum(TILES[t - 1].vp for c in hand for t in c[CARD_PAX])
            out[p] += MONEY_VP * st.money[p]
        return out

    def scale(self, state: State) -> float:
        era = getattr(state, "era", 2)
        return 4.0 + 6.0 * (4 - era)

    def choose(self, state: State, seat: int, actions: list[Action], rng: random.Random) -> Action:
        best: list[Action] = []
        best_value = float("-inf")
        for action in actions:
            trial = state.clone()
            try:
                trial.apply(seat, action)
            except IllegalAction:  # pragma: no cover - legal_actions and apply disagree
                continue
            steps = 0
            while not trial.is_over() and trial.to_act() == [seat] and steps < TURN_STEPS:
                follow = trial.legal_actions(seat)
                trial.apply(seat, follow[0] if len(follow) == 1 else one_ply(self, trial, seat, follow, rng))
                steps += 1
            value = self.margin(trial, seat)
            if value > best_value + 1e-9:
                best, best_value = [action], value
            elif abs(value - best_value) <= 1e-9:
                best.append(action)
        return best[rng.randrange(len(best))] if best else actions[0]


HEURISTIC = AeroplanesHeuristic()
