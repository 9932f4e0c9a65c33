"""The research adapters' overhead: the same random games played natively and through each adapter.

    python -m bench.adapters [--games NAME ...] [--games-per-run 3] [--runs 5]

Random games are recorded once on the engine (a random legal action at each decision), then each run plays
exactly those games four ways, timed, so the ratios compare identical work:

- native: `legal_actions` then `apply`, as any caller of the engine does;
- pettingzoo: the AEC loop a learner runs (`last()`, i.e. the seat's hashed observation and action mask,
  then `step` with the integers that spell the recorded action);
- openspiel: `legal_actions()` and `apply_action()` on the pyspiel state (no observation);
- openspiel+obs: the same, plus `information_state_tensor()` of the seat to act before each move.

The table gives milliseconds per game natively and each adapter's time as a ratio to native, the median of
`--runs` runs, at each title's smallest and largest player count; the machine's load average is printed
before and after, since the figures are only comparable within one run.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import time
from collections.abc import Callable

import pyspiel

import engine
import engine.adapters.openspiel as spiel
from engine.adapters.actions import Cursor, table
from engine.adapters.pettingzoo import env
from engine.core import Action

Game = tuple[int, list[tuple[int, Action]]]  # (engine seed, the (seat, action) decisions of one game)


def record(name: str, players: int, seed: int) -> Game:
    state = engine.get(name).new(players, seed)
    rng = random.Random(seed)
    moves = []
    while not state.is_over():
        seat = state.to_act()[0]
        action = rng.choice(state.legal_actions(seat))
        state.apply(seat, action)
        moves.append((seat, action))
    return seed, moves


def native(name: str, players: int, game: Game) -> None:
    seed, moves = game
    state = engine.get(name).new(players, seed)
    for seat, action in moves:
        state.legal_actions(seat)
        state.apply(seat, action)


class Speller:
    """The integer to choose now to play the recorded moves, read from the adapter's cursor (a token the
    adapter appends by itself, being forced, is never asked)."""

    def __init__(self, name: str, moves: list[tuple[int, Action]]):
        t = table(name)
        self.sequences = [t.encode(action) for _, action in moves]
        self.done = 0

    def next(self, cursor: Cursor) -> int:
        return self.sequences[self.done][len(cursor.prefix)]

    def after(self, cursor: Cursor) -> None:
        if not cursor.prefix:
            self.done += 1


def pettingzoo(name: str, players: int, game: Game) -> None:
    seed, moves = game
    e = env(name, players)
    e.reset(seed=seed)
    speller = Speller(name, moves)
    for _agent in e.agent_iter():
        _, _, termination, _, _ = e.last()
        if termination:
            e.step(None)
            continue
        e.step(speller.next(e.cursor))
        speller.after(e.cursor)


def _openspiel(observe: bool) -> Callable[[str, int, Game], None]:
    def play(name: str, players: int, game: Game) -> None:
        seed, moves = game
        state = pyspiel.load_game(spiel.short_name(name), {"players": players}).new_initial_state()
        state.cursor = Cursor(engine.get(name).new(players, seed))  # the recorded deal
        speller = Speller(name, moves)
        while not state.is_terminal():
            if observe:
                state.information_state_tensor(state.current_player())
            state.legal_actions()
            state.apply_action(speller.next(state.cursor))
            speller.after(state.cursor)

    return play


WAYS: dict[str, Callable[[str, int, Game], None]] = {
    "native": native,
    "pettingzoo": pettingzoo,
    "openspiel": _openspiel(False),
    "openspiel+obs": _openspiel(True),
}


def timed(way: Callable[[str, int, Game], None], name: str, players: int, games: list[Game]) -> float:
    """Seconds per game."""
    start = time.perf_counter()
    for game in games:
        way(name, players, game)
    return (time.perf_counter() - start) / len(games)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", nargs="*", default=engine.games())
    parser.add_argument("--games-per-run", type=int, default=3)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args(argv)
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())} ({os.cpu_count()} CPUs)")
    ways = [w for w in WAYS if w != "native"]
    print(f"{'game':<11} {'players':>7} {'native ms/game':>15} " + " ".join(f"{w:>14}" for w in ways)
          + f"   (ratio to native, median of {args.runs} runs of {args.games_per_run} games)")
    for name in args.games:
        game = engine.get(name)
        for players in sorted({game.min_players, game.max_players}):
            games = [record(name, players, seed) for seed in range(args.games_per_run)]
            runs = [{w: timed(f, name, players, games) for w, f in WAYS.items()} for _ in range(args.runs)]
            base = statistics.median(r["native"] for r in runs)
            ratios = [statistics.median(r[w] / r["native"] for r in runs) for w in ways]
            print(f"{name:<11} {players:>7} {base * 1000:>15.1f} " + " ".join(f"{x:>13.1f}x" for x in ratios),
                  flush=True)
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
