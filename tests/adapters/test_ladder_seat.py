"""OpenSpiel's ISMCTS seated in the ladder (`--levels ...,openspiel-ismcts`): it plays whole games of every title
through the adapter, honestly (from a determinisation), at a budget a decision, and its ledger lines say how it
played and which adapter code."""

from __future__ import annotations

import json
import random

import pytest

import engine
from engine.adapters.actions import Cursor, table
from research.lab.ladder import _code, lineups, main, per_decision
from research.lab.match import MatchResult
from research.lab.openspiel_bot import OpenSpielISMCTSBot
from research.lab.tournament import code_fingerprint


class _Honest:
    """A state that answers only what a bot may ask (its legal actions, a determinisation, the game's name and
    size) and refuses everything else: the true state's hidden parts cannot be read through it."""

    ALLOWED = {"legal_actions", "determinize", "game", "num_players"}

    def __init__(self, state: engine.State):
        self._state = state

    def __getattr__(self, name: str):
        if name not in self.ALLOWED:
            raise AssertionError(f"the bot read state.{name}")
        return getattr(self._state, name)


def test_the_bot_chooses_legal_actions_from_a_determinisation_only():
    state = engine.get("blueskies").new(3, 5)
    rng = random.Random(5)
    for _ in range(12):
        seat = state.to_act()[0]
        state.apply(seat, rng.choice(state.legal_actions(seat)))
    seat = state.to_act()[0]
    before = state.digest()
    bot = OpenSpielISMCTSBot(simulations=6)
    chosen = bot.choose(_Honest(state), seat, random.Random(1))
    assert chosen in state.legal_actions(seat) and bot.stats.iterations >= 6
    assert state.digest() == before


def test_the_bot_plays_the_same_game_from_the_same_rng():
    """Every draw of the search (resampling included) comes from the bot's rng: a ledger's deal replays."""

    def play() -> list:
        state, rng, bot, chosen = engine.get("blueskies").new(2, 5), random.Random(1), OpenSpielISMCTSBot(12), []
        for _ in range(6):
            seat = state.to_act()[0]
            chosen.append(bot.choose(state, seat, rng))
            state.apply(seat, chosen[-1])
        return chosen

    assert play() == play()


def test_the_ladder_seats_openspiel_ismcts_and_keys_its_games(tmp_path, capsys):
    ledger = tmp_path / "ladder.jsonl"
    (pair,) = main(["--game", "opensky", "--levels", "random,openspiel-ismcts", "--seeds", "1", "--workers", "1",
                    "--openspiel-simulations", "3", "--ledger", str(ledger)])
    lines = [json.loads(line) for line in ledger.read_text().splitlines()]
    assert pair.games == 2 and len(lines) == 2
    for line in lines:
        assert line["key"]["caps"] == {"random": None, "openspiel-ismcts": 3}
        assert line["key"]["code"] == _code("opensky", line["key"]["lineup"]) != code_fingerprint("opensky")
        seat = line["key"]["lineup"].index("openspiel-ismcts")
        assert line["result"]["iterations"][seat] > 0
    assert "openspiel-ismcts" in capsys.readouterr().out


def _asked(state: engine.State, action) -> int:
    """How many integers the adapter asks for `action` in `state`: the tokens at which there is a choice."""
    tokens, cursor, asked = table(state.game.name).encode(action), Cursor(state.clone()), 0
    while True:
        asked += len(cursor.legal_tokens()) > 1
        if cursor.step(tokens[len(cursor.prefix)]) is not None:  # the prefix holds the forced tokens too
            return asked


def test_simulations_are_a_decision_budget_the_later_integers_read_from_the_same_tree():
    """Aeroplanes' multi-part decisions (a tile's card then its destination, a route's source then its stop)
    cost one search, not one per integer; every decision is a whole number of searches of `simulations`."""
    state = engine.get("aeroplanes").new(3, 11)
    rng, bot, simulations = random.Random(2), OpenSpielISMCTSBot(simulations=24), 24
    spent = asked = searched = 0
    while asked - searched < 3 and searched < 80:  # until some decisions asked several integers
        seat = state.to_act()[0]
        if len(state.legal_actions(seat)) == 1:
            state.apply(seat, state.legal_actions(seat)[0])
            continue
        action = bot.choose(state, seat, rng)
        assert bot.stats.iterations % simulations == 0 and bot.stats.iterations >= simulations
        spent += bot.stats.iterations
        asked += _asked(state, action)
        searched += 1
        state.apply(seat, action)
    assert asked >= searched + 3
    assert spent < simulations * asked  # and they were not searched once each


@pytest.mark.slow  # six whole 3-player games through the ladder, over a minute: `make test-slow` (the 10-minute budget)
def test_the_ladder_plays_aeroplanes_against_openspiel_at_given_caps(tmp_path, capsys):
    """The 3-player table through the adapter, every seat rotated, and `--iterations` as the platform's cap."""
    ledger = tmp_path / "ladder.jsonl"
    (pair,) = main(["--game", "aeroplanes", "--players", "3", "--levels", "openspiel-ismcts,mcts-normal",
                    "--as-built", "--iterations", "5", "--openspiel-simulations", "4", "--seeds", "1",
                    "--workers", "1", "--ledger", str(ledger)])
    lines = [json.loads(line) for line in ledger.read_text().splitlines()]
    assert pair.games == len(lines) == 6
    assert {tuple(line["key"]["lineup"]) for line in lines} == {tuple(lineup) for lineup in
                                                               lineups("openspiel-ismcts", "mcts-normal", 3)}
    for line in lines:
        assert line["key"]["caps"] == {"openspiel-ismcts": 4, "mcts-normal": 5}
        result = line["result"]
        for level, iterations, decisions in zip(result["levels"], result["iterations"], result["decisions"],
                                                strict=True):
            assert 0 < iterations <= (5 if level == "mcts-normal" else 8) * decisions
    results = [MatchResult(**line["result"]) for line in lines]
    shown = {level: f"{per_decision(results, level):.0f}" for level in ("mcts-normal", "openspiel-ismcts")}
    assert 0 < per_decision(results, "mcts-normal") <= 5
    assert (f"iterations a decision mcts-normal {shown['mcts-normal']}, openspiel-ismcts "
            f"{shown['openspiel-ismcts']}") in capsys.readouterr().out


def test_a_node_whose_actions_differ_between_determinisations_is_searched_over_the_legal_ones():
    """Deep in the tree a seat's view can be the same in two determinisations that offer it different integers
    (Aeroplanes 3p made OpenSpiel's ISMCTS fail with a KeyError): such a node chooses among this state's legal
    integers and expands one its prior never saw."""
    import numpy as np
    from open_spiel.python.algorithms import ismcts

    from research.lab.openspiel_bot import EngineRollout, ReferenceISMCTS, _game

    state = _game("opensky", 2).new_initial_state()
    legal = state.legal_actions()
    bot = ReferenceISMCTS(state.get_game(), EngineRollout(random.Random(1)), uct_c=2.0, max_simulations=4,
                          random_state=np.random.RandomState(1))
    node = bot.create_new_node(state)
    stranger = max(legal) + 1  # an integer another determinisation offered here
    node.total_visits, node.prior_map = 3, {stranger: 1.0}
    node.child_info = {stranger: ismcts.ChildInfo(3, 1.0, 1.0)}
    assert bot.select_action_tree_policy(state, node, legal) in legal
    bot.expand_if_necessary(state, node, legal[0])
    assert legal[0] in node.child_info and set(legal) <= set(node.prior_map)
