"""Blue Skies heuristic (rules: docs/rules/blueskies.md).

Projection of final scores, from a determinized state:
  points + income x rounds left + the region majorities and unused-special
  bonus as they would be scored if the game ended now (BS-9.2, BS-9.3),
  + the budget still unspent in a round's purchase turn (it is scored when
  the turn ends, BS-8.1.3).
Rounds left: the game ends when someone reaches 100 points or runs out of
gates (BS-8.5); estimated as the smaller of (100 - leader's points) /
(leader's income + 4) and (fewest gates left) / 2, at least 0. The scale is
4 points plus 2 per round left. MCTS rollouts are cut after 8 random
decisions and valued by this projection.

Greedy (`choose`): a one-ply lookahead on this projection, the seat's lead
over its best rival, for purchases, card plays, the special action and
government help (each adds passengers or gates, which the projection values
through income and majorities); for discards (special action, government
help) it keeps the cards of airports where the seat holds the most gates and
discards cards of airports where it holds none.
"""

from __future__ import annotations

import random
from typing import Any

from ai.heuristics import Heuristic, one_ply
from engine.blueskies.actions import Discard
from engine.blueskies.data import BOARD
from engine.blueskies.scoring import end_gains
from engine.core import Action, State

BUY_PHASE = 1  # engine phase index of a round's purchase step (BS-8.1)


class BlueSkiesHeuristic(Heuristic):
    game = "blueskies"
    max_rollout_depth = 8
    reuse_tree = True

    def projected_scores(self, state: State) -> list[float]:
        st: Any = state
        points = st.points
        if st.phase == 6:  # over: final scores already include the end bonuses
            return [float(p) for p in points]
        players = len(points)
        gains = end_gains(BOARD, players, st.gates, st.special_used)
        rounds = self._rounds_left(st)
        income = st.income
        out = [points[s] + income[s] * rounds + gains[s] for s in range(players)]
        if st.phase == BUY_PHASE:
            out[st.actor] += st.budget
        return [float(x) for x in out]

    @staticmethod
    def _rounds_left(st: Any) -> float:
        leader = max(st.points)
        by_score = (100 - leader) / (max(st.income) + 4)
        by_gates = min(st.supply) / 2
        return max(0.0, min(by_score, by_gates))

    def scale(self, state: State) -> float:
        return 4.0 + 2.0 * self._rounds_left(state)

    #: Per-seat features for the fitted win model (`ai.learned`); R = estimated rounds left.
    FEATURES = (
        "points",
        "income_x_rounds",
        "end_bonus_now",
        "unspent_budget",
        "income",
        "flow_x_rounds",
        "hand_flow",
        "gates_left",
        "special_unused",
        "end_bonus_x_rounds",
    )

    def features(self, state: State) -> list[list[float]]:
        """What the projection sums, kept apart so a fit can weigh each part, plus *passenger flow*:
        the seat's share of the passengers each demand card will add (its gates' share of the airport,
        weighted by how many cards of the deck name the airport), over the rounds left (cards drawn by
        all) and in its own hand (cards it will play)."""
        st: Any = state
        players = len(st.points)
        gains = end_gains(BOARD, players, st.gates, st.special_used)
        rounds = self._rounds_left(st)
        cards = _card_weights()
        flow = [0.0] * players
        shares: list[dict[int, float] | None] = []  # per airport: each owning seat's share of its gates
        for a, owners in enumerate(st.gates):
            if not owners:
                shares.append(None)
                continue
            part = 1.0 / len(owners)
            share: dict[int, float] = {}
            for owner in owners:
                if owner >= 0:
                    share[owner] = share.get(owner, 0.0) + part
            shares.append(share)
            for owner, x in share.items():
                flow[owner] += x * cards[a]
        out = []
        for s in range(players):
            unspent = float(st.budget) if st.phase == BUY_PHASE and st.actor == s else 0.0
            hand = 0.0
            for c in st.hands[s]:
                held = shares[c]
                if held:
                    hand += held.get(s, 0.0)
            out.append([
                float(st.points[s]),
                st.income[s] * rounds,
                float(gains[s]),
                unspent,
                float(st.income[s]),
                flow[s] * rounds,
                hand,
                float(st.supply[s]),
                0.0 if st.special_used[s] else 1.0,
                gains[s] * rounds / 10.0,
            ])
        return out

    def choose(self, state: State, seat: int, actions: list[Action], rng: random.Random) -> Action:
        if actions[0].TYPE == "discard":
            return self._discard(state, seat, actions)
        return one_ply(self, state, seat, actions, rng)

    @staticmethod
    def _discard(state: State, seat: int, actions: list[Action]) -> Action:
        view = state.view(seat)
        mine: dict[str, int] = {}
        theirs: dict[str, int] = {}
        for airport in view["airports"]:
            for gate in airport["gates"]:
                if gate["owner"] == seat:
                    mine[airport["code"]] = mine.get(airport["code"], 0) + 1
                elif gate["owner"] != "local":
                    theirs[airport["code"]] = theirs.get(airport["code"], 0) + 1
        unwanted = [c for c in view["hand"] if not mine.get(c) and theirs.get(c)]
        target = sorted(unwanted)
        for action in actions:
            if isinstance(action, Discard) and sorted(action.cards) == target:
                return action
        return actions[0]


_CARDS: list[float] = []


def _card_weights() -> list[float]:
    """Per airport: its share of the demand deck (how often a drawn card names it)."""
    if not _CARDS:
        total = sum(a.cards for a in BOARD.airports)
        _CARDS.extend(a.cards / total for a in BOARD.airports)
    return _CARDS


HEURISTIC = BlueSkiesHeuristic()
