"""OpenSpiel's own ISMCTS as a bot of this project, through the OpenSpiel adapter: a reference opponent for the
ladder (`python -m ai.lab.ladder --levels greedy,openspiel-ismcts --openspiel-simulations 200`).

It is honest by construction, as every bot here: the search starts from `state.determinize(seat, rng)`, never
the true state, and OpenSpiel's ISMCTS then resamples that position for the seat at every simulation
(`resample_from_infostate`, the engine's determinisation again). Leaves are valued by one random rollout to the
end (OpenSpiel's `RandomRolloutEvaluator`), returns by rank (`engine.adapters.actions.rank_returns`).

An engine decision is one or more integers through the adapter (`engine.adapters.actions`): the bot runs one
search of `simulations` for each integer it is asked, so a decision of k asked integers costs k searches;
`stats.iterations` counts every simulation made. Needs the `research` extra (open-spiel).
"""

from __future__ import annotations

import random
from functools import cache

import numpy as np
import pyspiel
from open_spiel.python.algorithms import ismcts, mcts

import engine.adapters.openspiel as adapter
from ai.bot import Bot, Budget
from engine.adapters.actions import Cursor
from engine.core import Action, State

LEVEL = "openspiel-ismcts"
#: Simulations a searched integer when no budget gives an iteration cap.
DEFAULT_SIMULATIONS = 100


@cache
def _game(name: str, players: int) -> pyspiel.Game:
    """The registered game at this count; its options do not matter, the search starts from a given state."""
    return pyspiel.load_game(adapter.short_name(name), {"players": players})


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
        game = _game(state.game.name, state.num_players)
        search_state = game.new_initial_state()
        search_state.cursor = Cursor(state.determinize(seat, rng))
        numpy_rng = np.random.RandomState(rng.getrandbits(32))
        evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=numpy_rng)
        bot = ismcts.ISMCTSBot(game, evaluator, uct_c=self.uct_c, max_simulations=simulations,
                               random_state=numpy_rng)
        cursor = search_state.cursor
        while True:
            legal = cursor.legal_tokens()
            token = legal[0] if len(legal) == 1 else bot.step(search_state)
            if len(legal) > 1:
                self.stats.iterations += simulations
            action = cursor.step(token)
            if action is not None:
                break
        if action not in actions:
            raise RuntimeError(f"OpenSpiel's search chose {action}, which is not legal for seat {seat}")
        return action
