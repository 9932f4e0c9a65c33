"""What decides greedy self-play games: how close they are, who wins by seat, what the winner did better.

    python -m research.lab.anatomy --game opensky --players 2 --games 200

Every seat plays the `greedy` rule; game g is seeded as game g of `research.lab.tournament`. The report gives the
share of games by the winner's lead over the runner-up (in bands), the share of shared victories, the win
credit of each seat, and the mean of each part of the final score (the view's `score` breakdown, where a
game gives one) for the winner and for the other seats, with the mean number of decisions of each kind in
which the seat had a choice; then the same score parts by seat, which show where a seat's advantage comes
from (in 2-player OpenSky the first seat's first placements take most subsidy cubes, OS-6.4 and OS-7).
"""

from __future__ import annotations

import argparse
from collections import Counter, defaultdict
from typing import Any

import engine
from research.lab.selfplay import greedy_positions
from research.lab.tournament import game_seed


def play(game: str, players: int, seed: int) -> dict[str, Any]:
    """One greedy self-play game (`research.lab.selfplay`'s walk): final scores, winners, each seat's score parts and
    how many decisions of each kind (the TYPE of its last legal action) it had a choice in."""
    kinds: list[Counter] = [Counter() for _ in range(players)]
    final = None
    for state, seat, legal, _ in greedy_positions(game, players, seed, every=1):
        final = state  # the walk plays every position on one state object, which ends the game
        kinds[seat][legal[-1].TYPE] += 1
    assert final is not None and final.is_over()
    view = final.view(None)
    parts = []
    for p in view.get("players", []):
        score = p.get("score")
        parts.append({k: float(v) for k, v in score.items()} if isinstance(score, dict) else {})
    return {"scores": final.scores(), "winners": final.winners(), "parts": parts, "kinds": kinds}


def report(games: list[dict[str, Any]], band: int) -> list[str]:
    n = len(games)
    players = len(games[0]["scores"])
    leads: Counter = Counter()
    seats = [0.0] * players
    winner_parts: dict[str, float] = defaultdict(float)
    other_parts: dict[str, float] = defaultdict(float)
    for g in games:
        top = sorted(g["scores"], reverse=True)
        leads[min((top[0] - top[1]) // band, 10)] += 1
        for s in g["winners"]:
            seats[s] += 1.0 / len(g["winners"])
        best = max(range(players), key=lambda s: (s in g["winners"], g["scores"][s]))
        for s in range(players):
            rows = dict(g["parts"][s]) if g["parts"] else {}
            rows.update({f"decisions: {k}": float(v) for k, v in g["kinds"][s].items()})
            target = winner_parts if s == best else other_parts
            weight = 1.0 if s == best else 1.0 / (players - 1)
            for k, v in rows.items():
                target[k] += weight * v
    lines = [f"{n} games, {players} players; shared victories {sum(len(g['winners']) > 1 for g in games) / n:.1%}"]
    lines.append(
        "winner's lead over the runner-up: "
        + ", ".join(
            f"{'>=' if k == 10 else ''}{k * band}{'' if k == 10 else f'-{(k + 1) * band - 1}'}: {leads[k] / n:.0%}"
            for k in sorted(leads)
        )
    )
    lines.append("win credit by seat: " + ", ".join(f"seat {s}: {w / n:.1%}" for s, w in enumerate(seats)))
    lines.append(f"{'mean per game':<32}{'winner':>10}{'others':>10}")
    for k in sorted(set(winner_parts) | set(other_parts)):
        lines.append(f"{k:<32}{winner_parts[k] / n:>10.1f}{other_parts[k] / n:>10.1f}")
    return lines + seat_parts(games)


def seat_parts(games: list[dict[str, Any]]) -> list[str]:
    """The mean of each score part per seat (none where the game's view gives no breakdown)."""
    players = len(games[0]["scores"])
    keys = sorted({k for g in games for row in g["parts"] for k in row})
    if not keys:
        return []
    lines = [f"{'mean by seat':<32}" + "".join(f"{'seat ' + str(s):>10}" for s in range(players))]
    for k in keys:
        means = [sum(g["parts"][s].get(k, 0.0) for g in games) / len(games) for s in range(players)]
        lines.append(f"{k:<32}" + "".join(f"{m:>10.1f}" for m in means))
    return lines


def main(argv: list[str] | None = None) -> list[str]:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--game", default="opensky", choices=engine.games())
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--band", type=int, default=100, help="width of the lead bands, in points")
    args = parser.parse_args(argv)
    games = [play(args.game, args.players, game_seed(args.seed, i)) for i in range(args.games)]
    lines = report(games, args.band)
    print("\n".join(lines))
    return lines


if __name__ == "__main__":
    main()
