"""OpenSpiel's own ISMCTS as a bot of this project, through the OpenSpiel adapter: a reference opponent for the
ladder (`python -m research.lab.ladder --levels greedy,openspiel-ismcts --openspiel-simulations 200`).

It is honest by construction, as every bot here: the search starts from `state.determinize(seat, rng)`, never
the true state, and OpenSpiel's ISMCTS then resamples that position for the seat at every simulation
(`resample_from_infostate`, the engine's determinisation again). Returns by rank (`rank_returns`).

Two choices make it affordable in every title, Aeroplanes included (where a random game through the token
adapter is some 400 integers, and OpenSpiel's `RandomRolloutEvaluator` spent 14-38 ms a simulation on it):
- a leaf is valued by one uniformly random playout over *engine* actions (`EngineRollout`), not over the
  adapter's integers: the same kind of evaluation, at the engine's speed;
- `simulations` is the budget of a whole *decision*, as an iteration cap is for this project's levels, so the
  two can be compared at equal simulations: an engine decision is one or more integers through the adapter
  (`engine.adapters.actions`), the first is searched, and each later integer is read from the same tree (its
  node is the seat's information state with the integers chosen so far). Only where that node was visited
  fewer times than it has choices is it searched afresh, and `stats.iterations` counts every simulation made.
Needs the `research` extra (open-spiel).
"""

from __future__ import annotations

import random
from functools import cache

import numpy as np
import pyspiel
from open_spiel.python.algorithms import ismcts, mcts

import engine.adapters.openspiel as adapter
from ai.bot import Bot, Budget
from engine.adapters.actions import Cursor, rank_returns
from engine.core import Action, State

LEVEL = "openspiel-ismcts"
#: Simulations a decision when no budget gives an iteration cap.
DEFAULT_SIMULATIONS = 100


@cache
def _game(name: str, players: int) -> pyspiel.Game:
    """The registered game at this count; its options do not matter, the search starts from a given state."""
    return pyspiel.load_game(adapter.short_name(name), {"players": players})


class EngineRollout(mcts.Evaluator):
    """OpenSpiel's evaluator interface: a uniform prior over the legal integers, and a leaf's value from one
    uniformly random playout of the engine to the end (the seat mid-decision completes an action its chosen
    integers extend). Plays on a clone: the searched state is untouched."""

    def __init__(self, rng: random.Random):
        self.rng = rng

    def evaluate(self, state: adapter.SkyboardState) -> np.ndarray:
        cursor = state.cursor
        assert cursor is not None, "the search state is dealt"
        playout = cursor.state.clone()
        if cursor.prefix:
            playout.apply(cursor.seat(), self.rng.choice(cursor.completions()))  # type: ignore[arg-type]
        while not playout.is_over():
            for seat in playout.to_act():
                legal = playout.legal_actions(seat)
                if legal:  # an earlier seat's choice this step may have settled it
                    playout.apply(seat, self.rng.choice(legal))
        return np.array(rank_returns(playout.scores(), playout.winners()))

    def prior(self, state: adapter.SkyboardState) -> list[tuple[int, float]]:
        legal = state.legal_actions(state.current_player())
        return [(token, 1.0 / len(legal)) for token in legal]


class ReferenceISMCTS(ismcts.ISMCTSBot):
    """OpenSpiel's ISMCTS, unchanged wherever a node's actions are the same in every determinisation reaching it.
    A node is keyed by the seat's information state (its view), and deep in the tree two determinisations with the
    same view for a seat can still offer it different integers (seen in Aeroplanes 3p: OpenSpiel's ISMCTS then
    fails with a KeyError in `expand_if_necessary`); at such a node only, OpenSpiel's own handling of inconsistent
    action sets applies (the children filtered to the legal ones, the prior map completed)."""

    def expand_if_necessary(self, state: pyspiel.State, node: ismcts.ISMCTSNode, action: int) -> None:
        if action not in node.child_info and action not in node.prior_map:
            self.repopulate_prior_map_inconsistent_action_sets(state, node)
        super().expand_if_necessary(state, node, action)

    def select_action_tree_policy(self, state: pyspiel.State, node: ismcts.ISMCTSNode, legal_actions: list[int]
                                  ) -> int:
        if all(action in legal_actions for action in node.child_info):
            return super().select_action_tree_policy(state, node, legal_actions)
        self._allow_inconsistent_action_sets = True
        try:
            return super().select_action_tree_policy(state, node, legal_actions)
        finally:
            self._allow_inconsistent_action_sets = False


class OpenSpielISMCTSBot(Bot):
    level = LEVEL

    def __init__(self, simulations: int = DEFAULT_SIMULATIONS, uct_c: float = 2.0):
        super().__init__()
        self.simulations = simulations
        self.uct_c = uct_c

    def _choose(
        self, state: State, seat: int, actions: list[Action], rng: random.Random, budget: Budget | None
    ) -> Action:
        simulations = budget.iterations if budget is not None and budget.iterations else self.simulations
        search_state = _game(state.game.name, state.num_players).new_initial_state()
        search_state.cursor = Cursor(state.determinize(seat, rng))
        numpy_rng = np.random.RandomState(rng.getrandbits(32))
        bot = ReferenceISMCTS(search_state.get_game(), EngineRollout(random.Random(rng.getrandbits(64))),
                               uct_c=self.uct_c, max_simulations=simulations, random_state=numpy_rng)
        # the resampling seeded from `rng` too: OpenSpiel's default sampler draws from a seed of its own, and the
        # same deal, bots and rng would then play a different game on every run
        bot.set_resampler(lambda state, player: state.resample_from_infostate(player, numpy_rng.uniform))
        cursor, searched = search_state.cursor, False
        while True:
            legal = cursor.legal_tokens()
            if len(legal) == 1:
                token = legal[0]
            else:
                node = bot.lookup_node(search_state) if searched else None
                policy = [] if node is None or node.total_visits < len(legal) else \
                    [(t, p) for t, p in bot.get_final_policy(search_state, node) if t in legal]
                if not sum(p for _, p in policy):  # no tree here yet, or none of its choices legal in this state
                    policy = bot.run_search(search_state)  # a fresh tree
                    self.stats.iterations += simulations
                    searched = True
                tokens, weights = zip(*policy, strict=True)
                total = sum(weights)
                token = int(numpy_rng.choice(tokens, p=[w / total for w in weights]))  # the most visited; ties at
                # random, as step() chooses
            action = cursor.step(token)
            if action is not None:
                break
        if action not in actions:
            raise RuntimeError(f"OpenSpiel's search chose {action}, which is not legal for seat {seat}")
        return action
