"""ai.lab.ladder: paired line-ups, the CPU estimate, and a small ladder that adds up."""

from __future__ import annotations

import ai
from ai.lab.ladder import Capped, credit, estimate, lineups, main
from ai.levels import free_core_iterations


def test_lineups_meet_from_every_seat():
    assert lineups("lo", "up", 2) == [["up", "lo"], ["lo", "up"]]
    three = lineups("lo", "up", 3)
    assert len(three) == 6 and all(sum(r.count(x) for r in three) == 9 for x in ("lo", "up"))
    for seat in range(4):
        assert {r[seat] for r in lineups("lo", "up", 4)} == {"lo", "up"}


def test_levels_play_at_their_free_core_iteration_cap():
    assert free_core_iterations("mcts-normal", "opensky") == 1000  # the game's cap
    assert free_core_iterations("mcts-easy", "blueskies") == 200
    assert free_core_iterations("greedy", "opensky") is None
    assert Capped("mcts-hard", "blueskies").budget == ai.Budget(iterations=15_900)


def test_estimate_grows_with_the_seeds():
    small, large = estimate(10), estimate(20)
    assert [(g, p) for g, p, _ in small] == [(g, p) for g, p, _ in large]
    assert all(abs(b - 2 * a) < 1e-9 for (_, _, a), (_, _, b) in zip(small, large, strict=True))


def test_a_small_ladder_separates_greedy_from_random(capsys):
    (pair,) = main(["--game", "opensky", "--players", "2", "--levels", "random,greedy", "--seeds", "3",
                    "--workers", "1"])
    assert pair.games == 6 and pair.upper_seats * 2 == pair.seats
    assert pair.share()[0] > 0.5
    out = capsys.readouterr().out
    assert "greedy vs random" in out and "openskill ordinal" in out


def test_credit_splits_shared_wins():
    from ai.match import MatchResult

    shared = MatchResult(["a", "b", "a"], [5, 5, 1], [0, 1])
    assert credit(shared, "a") == 0.5 and credit(shared, "b") == 0.5
