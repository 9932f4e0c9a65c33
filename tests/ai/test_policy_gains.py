"""research.lab.policy_gains: the one-step gain over the greedy rule, per decision kind."""

from __future__ import annotations

import pytest

from research.lab.policy_gains import main, paired_gains, policy_gains


def test_paired_gains_are_differences_from_the_first_candidate_round_by_round():
    rewards = [[0.0, 1.0, 0.5], [0.5, 1.5, 1.0], [0.0, 0.0, 0.0]]
    (rule, _), (better, better_error), (worse, _) = paired_gains(rewards)
    assert rule == 0.0
    assert better == pytest.approx(0.5) and better_error == pytest.approx(0.0)  # the same gain every round
    assert worse == pytest.approx(-0.5)


def test_samples_positions_per_kind_and_is_seeded():
    found = policy_gains("opensky", 2, ["lease", "choose_market"], positions=2, rounds=3, candidates=3)
    assert [len(g.best) for g in found.values()] == [2, 2]
    for gains in found.values():
        assert len(gains.significant) <= len(gains.best)
    again = policy_gains("opensky", 2, ["lease", "choose_market"], positions=2, rounds=3, candidates=3)
    assert {k: g.best for k, g in again.items()} == {k: g.best for k, g in found.items()}


def test_bad_arguments_are_refused_by_name(capsys):
    for argv, name in ((["--kinds", ""], "--kinds"), (["--kinds", "lease", "--rounds", "1"], "--rounds")):
        with pytest.raises(SystemExit):
            main(["--game", "opensky", *argv])
        assert name in capsys.readouterr().err
