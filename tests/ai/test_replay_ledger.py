"""research.lab.replay_ledger: a tournament ledger's games replay exactly under an iteration cap."""

from __future__ import annotations

import json

import pytest

from research.lab.replay_ledger import main, replay
from research.lab.tournament import main as tournament


def _ledger(tmp_path):
    path = tmp_path / "ledger.jsonl"
    tournament(["--game", "blueskies", "--players", "2", "--bots", "mcts-normal,greedy", "--games", "2", "--seed", "4",
                "--iterations", "20", "--workers", "1", "--no-progress", "--ledger", str(path)])
    return path


def test_games_played_under_an_iteration_cap_replay_identically(tmp_path):
    path = _ledger(tmp_path)
    results = replay(path, 5)
    assert [index for index, *_ in results] == [0, 1]
    assert all(same for _, same, _, _ in results)
    assert all(same for _, same, _, _ in replay(path, 5, iterations=20))  # the cap alone, no time limit
    assert not all(same for _, same, _, _ in replay(path, 5, iterations=3))  # another cap plays other games
    assert json.loads(path.read_text().splitlines()[0])["key"]["budget"] == {"seconds": None, "iterations": 20}


def test_a_changed_result_is_reported_and_fails(tmp_path, capsys):
    path = _ledger(tmp_path)
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    lines[0]["result"]["scores"] = [s + 50 for s in lines[0]["result"]["scores"]]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    assert main([str(path), "--games", "2"]) == 1
    out = capsys.readouterr().out
    assert "DIFFERENT" in out and "1 of 2 games replayed identically" in out


def test_a_missing_ledger_is_refused_by_name(tmp_path, capsys):
    with pytest.raises(SystemExit):
        main([str(tmp_path / "nope.jsonl")])
    assert "nope.jsonl" in capsys.readouterr().err
