"""bench/adapters.py replays recorded games exactly through each adapter, and reports ratios to native; bench/refbots.py
sets equal-CPU caps from the two searches' measured speeds."""

from __future__ import annotations

import re

from bench import adapters
from engine.adapters.pettingzoo import env


def test_the_recorded_game_is_replayed_exactly_through_the_adapters():
    seed, moves = game = adapters.record("blueskies", 3, 4)
    native = adapters.engine.get("blueskies").new(3, seed)
    for seat, action in moves:
        native.apply(seat, action)
    e = env("blueskies", 3)
    e.reset(seed=seed)
    speller = adapters.Speller("blueskies", moves)
    for _ in e.agent_iter():
        if e.last()[2]:
            e.step(None)
            continue
        e.step(speller.next(e.cursor))
        speller.after(e.cursor)
    assert e.cursor.state.digest() == native.digest() and speller.done == len(moves)
    for way in adapters.WAYS.values():
        way("blueskies", 3, game)  # each replays to the end without running out of moves


def test_the_benchmark_prints_a_ratio_per_adapter(capsys):
    adapters.main(["--games", "opensky", "--runs", "1", "--games-per-run", "1"])
    rows = [line for line in capsys.readouterr().out.splitlines() if line.startswith("opensky")]
    assert len(rows) == 2
    for row in rows:
        assert len(re.findall(r"\d+\.\dx", row)) == 3


def test_the_equal_cpu_caps_follow_the_two_searches_measured_speeds(capsys):
    """bench/refbots.py: the platform's cap is `--seconds` at its free-core rate, OpenSpiel's that cap times the
    ratio of the speeds measured in the same run."""
    from ai.games import profile
    from bench import refbots

    ((game, players, ours, theirs, cap, simulations),) = refbots.main(["--games", "blueskies:2", "--positions", "1",
                                                                       "--seconds", "0.2"])
    assert (game, players) == ("blueskies", 2) and ours > 0 and theirs > 0
    assert cap == round(0.2 * profile("blueskies").free_core_rate) and simulations == max(1, round(cap * theirs / ours))
    assert re.search(rf"^blueskies\s+2 .* {cap}, {simulations}$", capsys.readouterr().out, re.MULTILINE)
