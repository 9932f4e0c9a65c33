"""research.lab.anatomy: the greedy self-play report adds up."""

from __future__ import annotations

import re

from research.lab.anatomy import main, play, report


def test_each_game_credits_exactly_one_victory_across_the_seats():
    lines = main(["--game", "opensky", "--players", "3", "--games", "4", "--seed", "5"])
    credits = [float(x) for x in re.findall(r"seat \d: ([\d.]+)%", lines[2])]
    assert len(credits) == 3 and abs(sum(credits) - 100.0) < 0.2
    bands = [float(x) for x in re.findall(r": (\d+)%", lines[1])]
    assert 98 <= sum(bands) <= 102


def test_the_winner_rows_are_the_winners_own_score_parts():
    """OS-19.2: a score's parts add up to its total, for the winner as for the others."""
    game = play("opensky", 2, 11)
    winner = game["winners"][0]
    parts = game["parts"][winner]
    assert parts["total"] == parts["fares"] + parts["subsidies"] + parts["ancillaries"] == game["scores"][winner]
    lines = report([game], 100)
    total = next(line for line in lines if line.startswith("total"))
    assert total.split()[1:] == [f"{game['scores'][winner]:.1f}", f"{game['scores'][1 - winner]:.1f}"]


def test_the_seat_rows_are_each_seats_own_score_parts():
    """OS-19.2 by seat: each seat's row holds the mean of its own parts over the games."""
    games = [play("opensky", 2, seed) for seed in (11, 12)]
    lines = report(games, 100)
    start = lines.index(next(line for line in lines if line.startswith("mean by seat")))
    rows = {line.split()[0]: [float(x) for x in line.split()[1:]] for line in lines[start + 1:]}
    for seat in range(2):
        for part in ("subsidies", "total"):
            assert rows[part][seat] == sum(g["parts"][seat][part] for g in games) / 2
    assert rows["total"] == [sum(g["scores"][s] for g in games) / 2 for s in range(2)]
