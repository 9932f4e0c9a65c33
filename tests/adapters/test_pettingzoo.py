"""PettingZoo's own checks (api_test, seed_test) on every title at every player count, and the env's contract."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

import engine
from engine.adapters.actions import table
from engine.adapters.pettingzoo import env
from tests.adapters.conftest import EVERY_COUNT, WITH_OPTIONS


@pytest.mark.parametrize(("name", "players"), EVERY_COUNT)
def test_pettingzoo_api_test_and_seed_test_pass(name, players):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # api_test's advice (e.g. "observation is not in [0, 1]") is not a failure
        api_test(env(name, players), num_cycles=1000)
        seed_test(lambda: env(name, players), num_cycles=500)


@pytest.mark.parametrize(("name", "players", "options"), WITH_OPTIONS)
def test_pettingzoo_api_test_and_seed_test_pass_with_options(name, players, options):
    e = env(name, players, **options)
    e.reset(seed=1)
    assert e.cursor.state.digest() == engine.get(name).new(players, 1, options).digest()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        api_test(e, num_cycles=1000)
        seed_test(lambda: env(name, players, **options), num_cycles=500)


#: Whole random games of Aeroplanes and Blue Skies at four and five seats are most of this file's time: they run in
#: `make test-slow`; `make test` plays every title at its smaller tables (make test's ten-minute budget)
WHOLE_GAMES = [pytest.param(name, players, marks=[pytest.mark.slow] if name != "opensky" and players >= 4 else [])
               for name, players in EVERY_COUNT]


@pytest.mark.parametrize(("name", "players"), WHOLE_GAMES)
def test_a_random_agent_plays_to_the_end_with_rank_rewards(name, players):
    e = env(name, players, render_mode="ansi")
    e.reset(seed=players)
    rng = np.random.default_rng(players)
    totals = dict.fromkeys(e.possible_agents, 0.0)
    steps = 0
    for agent in e.agent_iter():
        observation, reward, termination, truncation, _ = e.last()
        totals[agent] += reward
        assert not truncation
        if termination:
            e.step(None)
            continue
        mask = observation["action_mask"]
        assert mask.dtype == np.int8 and mask.shape == (table(name).size,) and mask.any()
        assert np.flatnonzero(mask).tolist() == e.cursor.legal_tokens()
        for other in e.possible_agents:
            if other != agent:
                assert not e.observe(other)["action_mask"].any(), "a seat not asked was offered actions"
        e.step(int(rng.choice(np.flatnonzero(mask))))
        steps += 1
    state = e.cursor.state
    assert state.is_over() and steps >= engine.get(name).max_players
    assert abs(sum(totals.values())) < 1e-9
    best = max(totals.values())
    assert {e.possible_agents[w] for w in state.winners()} <= {a for a, r in totals.items() if r == best}
    assert "game over" in e.render()


def test_seeds_deal_games_and_a_reset_without_seed_moves_on():
    a, b = env("opensky", 3), env("opensky", 3)
    a.reset(seed=5)
    b.reset(seed=5)
    assert a.cursor.state.digest() == b.cursor.state.digest()
    a.reset()
    b.reset()
    assert a.cursor.state.digest() == b.cursor.state.digest()
    b.reset(seed=6)
    assert a.cursor.state.digest() != b.cursor.state.digest()


def test_bad_arguments_are_refused_at_construction():
    with pytest.raises(ValueError):
        env("opensky", 5)
    with pytest.raises(ValueError, match="unknown option"):
        env("opensky", 2, colour="red")
    with pytest.raises(ValueError):
        env("blueskies", 2, first_player=4)
    with pytest.raises(ValueError, match="render_mode"):
        env("opensky", 2, render_mode="rgb_array")


def test_an_agent_must_act_with_an_integer_and_an_illegal_one_is_refused():
    e = env("aeroplanes", 3)
    e.reset(seed=1)
    mask = e.observe(e.agent_selection)["action_mask"]
    with pytest.raises(ValueError):
        e.step(None)
    with pytest.raises(ValueError, match="not legal"):
        e.step(int(np.flatnonzero(mask == 0)[0]))
