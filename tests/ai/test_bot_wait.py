"""A player's wait per bot decision stays under 3 s at p95 on `make run`'s worker pool, at every level a game offers
(a player's trial: Aeroplanes' strongest level had answered in 0.6-11.6 s). The wait is the decision's queue wait
plus its thinking; `python -m bench.bot_wait` measures both on that pool (bench/RESULTS.md, "Bot waits": p95 at most
1.6 s at every offered level, on a machine at load 10-18). What keeps it so is each offered level's think limit: a
level offered with a longer search (mcts-hard's own 3 s, were a game to offer it) would spend the whole target thinking
alone, so every offered level's default budget stops within THINK_CAP_S, or searches no time at all."""

from __future__ import annotations

import pytest

from ai.levels import game_budget, ladder

#: the longest a level a game offers may think a decision: the rest of the 3 s target is the queue's and the worker's
THINK_CAP_S = 1.5
GAMES = ("opensky", "aeroplanes", "blueskies")


@pytest.mark.parametrize("game", GAMES)
def test_every_offered_level_stops_thinking_within_the_cap(game):
    for level in ladder(game):
        budget = game_budget(level, game)
        if budget is None:
            continue  # a rule or a policy: no search, milliseconds (bench/RESULTS.md "Bot cost")
        assert budget.seconds is not None and budget.seconds <= THINK_CAP_S, (game, level, budget)


def test_the_cap_bites_on_a_level_that_would_think_longer():
    """The guard is not empty: mcts-hard's own search, which no game offers today, thinks 3 s."""
    from ai.levels import default_budget

    hard = default_budget("mcts-hard")
    assert hard is not None and hard.seconds is not None and hard.seconds > THINK_CAP_S
