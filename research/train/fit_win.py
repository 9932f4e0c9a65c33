"""Fit a game's win model (`ai.learned`) to the winners of self-play games.

    python -m research.train.fit_win --game blueskies --games 400 --seed 1 --workers 2

Games are played by `greedy` bots that take a uniformly random legal action with
probability `--epsilon` (so the positions cover more than one line of play), at
every player count the game allows. Every `--every`-th position before the end
is kept with each seat's features (`Heuristic.features`) and the game's
winners. The weights maximize the conditional-logit likelihood of the winners
(Newton's method, a small L2 penalty on standardized features).

Games are split by index: the last `--holdout` share is never fitted and scores
both the fitted model and the hand-set projection (`ai.outcome.win_chances`) by
their log-loss on who won. The weights are written to
`ai/heuristics/fitted/<game>.json` only with `--write`, with those scores.
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing
import os
import random
import sys
from dataclasses import dataclass

import engine
from ai.heuristics import for_game
from ai.learned import WinModel, load_model, model_path
from ai.levels import make_bot
from ai.outcome import win_chances


@dataclass(slots=True)
class Sample:
    """One kept position: features per seat, the hand projection's win chances, the winners' shares."""

    features: list[list[float]]
    projection: list[float]
    outcome: list[float]


def play_game(job: tuple[str, int, int, float, int]) -> list[Sample]:
    """One self-play game; its kept positions labelled with the final winners."""
    game_name, players, seed, epsilon, every = job
    game = engine.get(game_name)
    heuristic = for_game(game_name)
    state = game.new(players, seed)
    rng = random.Random(seed)
    greedy = make_bot("greedy")
    kept: list[tuple[list[list[float]], list[float]]] = []
    step = 0
    while not state.is_over():
        if step % every == every - 1:
            projection = win_chances(heuristic.projected_scores(state), heuristic.scale(state))
            kept.append((heuristic.features(state), projection))
        seats = state.to_act()
        seat = seats[rng.randrange(len(seats))]
        legal = state.legal_actions(seat)
        if len(legal) == 1:
            action = legal[0]
        elif rng.random() < epsilon:
            action = legal[rng.randrange(len(legal))]
        else:
            action = greedy.choose(state, seat, rng)
        state.apply(seat, action)
        step += 1
    winners = state.winners()
    outcome = [1.0 / len(winners) if s in winners else 0.0 for s in range(players)]
    return [Sample(f, p, outcome) for f, p in kept]


def fit(samples: list[Sample], l2: float = 1e-3, rounds: int = 30):
    """Conditional-logit weights (on raw features) by Newton's method on standardized features."""
    import numpy as np

    rows = np.array([row for s in samples for row in s.features], dtype=float)
    mean = rows.mean(axis=0)
    std = rows.std(axis=0)
    std[std < 1e-9] = 1.0
    groups: dict[int, tuple[np.ndarray, np.ndarray]] = {}
    for players in sorted({len(s.features) for s in samples}):
        chosen = [s for s in samples if len(s.features) == players]
        x = (np.array([s.features for s in chosen], dtype=float) - mean) / std  # (n, seats, d)
        y = np.array([s.outcome for s in chosen], dtype=float)
        groups[players] = (x, y)
    d = rows.shape[1]
    w = np.zeros(d)
    n = len(samples)
    for _ in range(rounds):
        grad = l2 * n * w
        hess = l2 * n * np.eye(d)
        for x, y in groups.values():
            u = x @ w
            u -= u.max(axis=1, keepdims=True)
            p = np.exp(u)
            p /= p.sum(axis=1, keepdims=True)
            grad += np.einsum("nsd,ns->d", x, p - y)
            xbar = np.einsum("nsd,ns->nd", x, p)
            hess += np.einsum("nsd,ns,nse->de", x, p, x) - np.einsum("nd,ne->de", xbar, xbar)
        step = np.linalg.solve(hess, grad)
        w -= step
        if float(np.abs(step).max()) < 1e-8:
            break
    return (w / std).tolist()


def log_loss(chances: list[list[float]], outcomes: list[list[float]]) -> float:
    """Mean cross-entropy of predicted win chances against the winners' shares (lower is better)."""
    total = 0.0
    for p, y in zip(chances, outcomes, strict=True):
        total -= sum(yi * math.log(max(pi, 1e-12)) for pi, yi in zip(p, y, strict=True))
    return total / max(1, len(outcomes))


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--game", required=True, choices=engine.games())
    parser.add_argument("--games", type=int, default=400, help="games per player count")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--epsilon", type=float, default=0.15)
    parser.add_argument("--every", type=int, default=5)
    parser.add_argument("--holdout", type=float, default=0.2)
    parser.add_argument("--players", type=int, action="append", help="fit to this player count only (repeatable)")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--write", action="store_true", help="store the weights for MCTS to use")
    args = parser.parse_args(argv)
    game = engine.get(args.game)
    heuristic = for_game(args.game)
    names = heuristic.FEATURES
    if not names:
        parser.error(f"{args.game}'s heuristic defines no FEATURES to fit")
    counts = sorted(set(args.players)) if args.players else list(range(game.min_players, game.max_players + 1))
    if any(not game.min_players <= n <= game.max_players for n in counts):
        parser.error(f"{args.game} is for {game.min_players}-{game.max_players} players")
    indices = [i for i in range(args.games) for _ in counts]
    jobs = [(args.game, players, args.seed * 1_000_003 + i * 11 + players, args.epsilon, args.every)
            for i in range(args.games) for players in counts]
    cut = int(args.games * (1 - args.holdout))
    with multiprocessing.get_context("fork").Pool(args.workers) as pool:
        results = pool.map(play_game, jobs, chunksize=4)
    train = [s for i, samples in zip(indices, results, strict=True) if i < cut for s in samples]
    test = [s for i, samples in zip(indices, results, strict=True) if i >= cut for s in samples]
    weights = fit(train)
    model = WinModel(args.game, tuple(names), tuple(weights))
    stored = load_model(args.game, names)
    outcomes = [s.outcome for s in test]
    report = {
        "games_per_player_count": args.games,
        "players": list(counts),
        "seed": args.seed,
        "epsilon": args.epsilon,
        "positions": {"train": len(train), "holdout": len(test)},
        "holdout_log_loss": {
            "fitted": round(log_loss([model.win_chances(s.features) for s in test], outcomes), 4),
            "hand_projection": round(log_loss([s.projection for s in test], outcomes), 4),
            "uniform": round(log_loss([[1 / len(s.outcome)] * len(s.outcome) for s in test], outcomes), 4),
            **(
                {"stored_model": round(log_loss([stored.win_chances(s.features) for s in test], outcomes), 4)}
                if stored is not None
                else {}
            ),
        },
    }
    text = json.dumps({**model.to_json(), "fit": report}, indent=2)
    print(text)
    if args.write:
        path = model_path(args.game)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text + "\n", encoding="utf-8")
        print(f"written to {path}", file=sys.stderr)
    return report


if __name__ == "__main__":
    main()
