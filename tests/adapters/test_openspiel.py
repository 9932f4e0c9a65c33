"""OpenSpiel's own checks (random_sim_test with serialisation) and its ISMCTS and MCTS playing whole games."""

from __future__ import annotations

import pickle

import numpy as np
import pyspiel
import pytest
from open_spiel.python.algorithms import ismcts, mcts

import engine
import engine.adapters.openspiel as adapter
from engine.adapters.actions import table
from engine.adapters.encoding import FEATURES
from tests.adapters.conftest import EXTREMES, GAMES, WITH_OPTIONS


def load(name: str, players: int, **params) -> pyspiel.Game:
    return pyspiel.load_game(adapter.short_name(name), {"players": players, **params})


#: The five-player Aeroplanes and Blue Skies games are most of this file's time: their serialised sims run in
#: `make test-slow` (which also plays every table three times, below); `make test` keeps the others (make test's
#: ten-minute budget)
SIM_TABLES = [pytest.param(name, players, marks=[pytest.mark.slow] if (name, players) in
                           {("aeroplanes", 5), ("blueskies", 5)} else []) for name, players in EXTREMES]


@pytest.mark.parametrize(("name", "players"), SIM_TABLES)
def test_openspiel_random_sim_test_passes_with_serialisation(name, players):
    pyspiel.random_sim_test(load(name, players), num_sims=1, serialize=True, verbose=False)


@pytest.mark.parametrize(("name", "players", "options"), WITH_OPTIONS)
def test_openspiel_random_sim_test_passes_with_options(name, players, options):
    game = load(name, players, **options)
    state = game.new_initial_state()
    assert state.engine_state().digest() == engine.get(name).new(players, state.seed, options).digest()
    pyspiel.random_sim_test(game, num_sims=1, serialize=True, verbose=False)


@pytest.mark.slow
@pytest.mark.parametrize(("name", "players"), EXTREMES)
def test_openspiel_random_sim_test_passes_many_games(name, players):
    pyspiel.random_sim_test(load(name, players, rng_seed=11), num_sims=3, serialize=True, verbose=False)


@pytest.mark.parametrize("name", GAMES)
def test_the_registered_game_describes_itself(name):
    game_type = pyspiel.load_game(adapter.short_name(name)).get_type()
    engine_game = engine.get(name)
    assert game_type.short_name in {g.short_name for g in pyspiel.registered_games()}
    assert (game_type.min_num_players, game_type.max_num_players) == (engine_game.min_players, engine_game.max_players)
    assert game_type.dynamics == pyspiel.GameType.Dynamics.SEQUENTIAL
    assert game_type.information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
    game = load(name, engine_game.max_players)
    assert game.num_players() == engine_game.max_players
    assert game.num_distinct_actions() == table(name).size
    assert game.information_state_tensor_shape() == [FEATURES] == game.observation_tensor_shape()
    assert (game.min_utility(), game.max_utility(), game.utility_sum()) == (-1.0, 1.0, 0.0)


def test_options_are_parameters_and_bad_ones_are_refused():
    state = load("opensky", 3, map="north_america", callsigns="random").new_initial_state()
    assert state.engine_state().options == {"map": "north_america", "callsigns": "random"}
    assert load("blueskies", 3, first_player=2).new_initial_state().engine_state().view(None)["first_player"] == 2
    assert load("blueskies", 3).get_parameters()["first_player"] == -1  # "random"
    with pytest.raises(ValueError, match="north_pole"):
        load("opensky", 2, map="north_pole")
    with pytest.raises(ValueError, match="first_player"):
        load("blueskies", 2, first_player=3)
    with pytest.raises(ValueError, match="3-5 players"):
        load("aeroplanes", 2)


def test_rng_seed_decides_the_deals():
    def deals(seed):
        game = load("blueskies", 3, rng_seed=seed)
        return [game.new_initial_state().engine_state().digest() for _ in range(3)]

    assert deals(1) == deals(1)
    assert deals(1) != deals(2)
    assert len(set(deals(1))) == 3


@pytest.mark.parametrize("name", GAMES)
def test_a_state_survives_clone_pickle_and_serialisation_and_plays_on_identically(name):
    game = load(name, engine.get(name).max_players)
    state = game.new_initial_state()
    rng = np.random.default_rng(3)
    for _ in range(40):
        state.apply_action(int(rng.choice(state.legal_actions())))
    copies = [state.clone(), pickle.loads(pickle.dumps(state)), game.deserialize_state(state.serialize())]
    _, from_text = pyspiel.deserialize_game_and_state(pyspiel.serialize_game_and_state(game, state))
    for copy in [*copies, from_text]:
        assert str(copy) == str(state) and copy.history() == state.history()
    for _ in range(60):
        if state.is_terminal():
            break
        action = int(rng.choice(state.legal_actions()))
        for s in (state, *copies):
            s.apply_action(action)
    assert len({str(s) for s in (state, *copies)}) == 1


class _ZeroEvaluator(mcts.Evaluator):
    """Leaves valued 0 with uniform priors: the search runs (tree, resampling, clones) without rollouts, so a
    whole game of every title fits in the fast suite; the slow test below uses random rollouts."""

    def evaluate(self, state):
        return np.zeros(state.num_players())

    def prior(self, state):
        actions = state.legal_actions()
        return [(a, 1.0 / len(actions)) for a in actions]


def _play(name: str, players: int, evaluator: mcts.Evaluator, simulations: int, seed: int) -> pyspiel.State:
    """ISMCTS in the even seats, MCTS in the odd ones, to the end."""
    game = load(name, players, rng_seed=seed)
    rs = np.random.RandomState(seed)
    bots = [
        ismcts.ISMCTSBot(game, evaluator, uct_c=2.0, max_simulations=simulations, random_state=rs)
        if seat % 2 == 0
        else mcts.MCTSBot(game, uct_c=2.0, max_simulations=simulations, evaluator=evaluator, random_state=rs)
        for seat in range(players)
    ]
    state = game.new_initial_state()
    while not state.is_terminal():
        state.apply_action(bots[state.current_player()].step(state))
    return state


def _check_finished(state: pyspiel.State) -> None:
    engine_state = state.engine_state()
    assert engine_state.is_over()
    returns = state.returns()
    assert abs(sum(returns)) < 1e-9
    assert all(returns[w] == max(returns) for w in engine_state.winners())


@pytest.mark.parametrize("name", GAMES)
def test_openspiel_ismcts_and_mcts_play_whole_games(name):
    _check_finished(_play(name, engine.get(name).min_players, _ZeroEvaluator(), simulations=3, seed=1))


@pytest.mark.slow
@pytest.mark.parametrize("name", GAMES)
def test_openspiel_ismcts_and_mcts_play_whole_games_with_random_rollouts(name):
    evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=np.random.RandomState(2))
    _check_finished(_play(name, engine.get(name).max_players, evaluator, simulations=4, seed=2))
