"""Strength sanity checks with small seeded matches (the real measurements are in bench/RESULTS.md).

Seats rotate so that each level plays every seat; a win shared by k seats
counts 1/k. Thresholds sit well above the fair share (1/players) so that a
bot no better than random fails them.
"""

from __future__ import annotations

import pytest

import ai
import engine
from ai.heuristics import has_module
from ai.ismcts import ISMCTSBot
from ai.levels import SEARCH
from research.lab.match import play_match
from research.lab.tournament import seating

GAMES = engine.games()


def _win_share(game: str, players: int, hero: str, villain: str, games: int, budget: ai.Budget | None) -> float:
    """`hero` and `villain` are level names; "search" is the ISMCTS of mcts-easy's settings, whatever level a game
    offers it as (its profile's same_as, ai/games/<game>.py)."""
    lineup = (hero,) + (villain,) * (players - 1)
    credit = 0.0
    for index in range(games):
        seats = seating(lineup, index)
        bots = [ISMCTSBot(level, SEARCH["mcts-easy"]) if level == "search" else ai.make_bot(level, game)
                for level in seats]
        result = play_match(game, seats, 500 + index, budget=budget, bots=bots)
        credit += sum(1 / len(result.winners) for s in result.winners if seats[s] == hero)
    return credit / games


@pytest.mark.parametrize("game", GAMES)
def test_every_registered_game_has_its_own_heuristic_module(game):
    assert has_module(game), f"ai/heuristics/{game}.py is missing"


GREEDY_GAMES = {"opensky": 20, "blueskies": 20, "aeroplanes": 9}


#: Nine whole Aeroplanes games are most of this file's time: that title's greedy match runs in `make test-slow`,
#: the others in `make test` (Aeroplanes' short ISMCTS match below stays there too; make test's ten-minute budget)
GREEDY_CASES = [pytest.param(game, marks=[pytest.mark.slow] if game == "aeroplanes" else []) for game in GAMES]


@pytest.mark.parametrize("game", GREEDY_CASES)
def test_greedy_beats_random_clearly(game):
    players = engine.get(game).min_players
    share = _win_share(game, players, "greedy", "random", GREEDY_GAMES.get(game, 12), None)
    fair = 1 / players
    assert share >= min(0.9, 2 * fair), f"greedy won {share:.0%} of {players}-player games against random"


@pytest.mark.parametrize("game", GAMES)
def test_ismcts_beats_random_in_a_short_match(game):
    players = engine.get(game).min_players
    games = 4 if players == 2 else players
    share = _win_share(game, players, "search", "random", games, ai.Budget(iterations=24))
    fair = 1 / players
    assert share >= 1.5 * fair, f"ISMCTS won {share:.0%} of {players}-player games against random"
