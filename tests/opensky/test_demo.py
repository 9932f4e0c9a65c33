"""engine.demo: one seeded random game in the terminal, for any registered game."""

from __future__ import annotations

import pytest

from engine import demo


def test_demo_plays_a_seeded_opensky_game_to_the_end(capsys):
    assert demo.main(["opensky", "--seed", "1", "--players", "3", "--map", "north_america"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("OpenSky: 3 players, seed 1")
    assert "dice_rolled" in out and "game_over" in out
    assert "Final scores:" in out and "Winner(s): seat" in out
    assert demo.main(["opensky", "--seed", "1", "--players", "3", "--map", "north_america"]) == 0
    assert capsys.readouterr().out == out  # seeded: the same game again


def test_demo_rejects_bad_input_clearly(capsys):
    assert demo.main(["opensky", "--players", "9"]) == 2
    assert "2-4 players" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        demo.main(["opensky", "--map", "mars"])
