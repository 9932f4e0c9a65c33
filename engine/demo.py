"""Play one seeded game between random players in the terminal, for any registered game.

    python -m engine.demo opensky --seed 1 [--players 2] [--map europe] [--<option> VALUE ...]

Every option of the chosen game becomes a `--<option>` flag. The demo prints each
decision (it watches over everyone's shoulder, so sealed choices show too) and the
public events (what a spectator sees), then the final scores and winners. It only
uses the engine contract, so it works for every game.
"""

from __future__ import annotations

import argparse
import random
import sys
from typing import Any

import engine
from engine.core import Event


def _fmt(value: Any) -> str:
    if isinstance(value, list):
        return "[" + ", ".join(_fmt(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {_fmt(v)}" for k, v in value.items()) + "}"
    return str(value)


def format_event(event: Event) -> str:
    """One readable line: `type  key=value ...`."""
    fields = " ".join(f"{k}={_fmt(v)}" for k, v in event.data.items())
    return f"{event.type:<22} {fields}".rstrip()


def _parser(game_name: str | None) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m engine.demo", description=__doc__.split("\n")[0])
    parser.add_argument("game", choices=engine.games(), help="registered game name")
    parser.add_argument("--seed", type=int, default=1, help="game seed (also seeds the random players)")
    parser.add_argument("--players", type=int, default=None, help="number of players (default: the minimum)")
    if game_name in engine.games():
        for key, spec in engine.get(game_name).options.items():
            parser.add_argument(
                f"--{key}", default=spec["default"], choices=[str(c) for c in spec["choices"]],
                help=spec["description"],
            )
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    first = next((a for a in argv if not a.startswith("-")), None)
    args = _parser(first).parse_args(argv)
    game = engine.get(args.game)
    players = args.players if args.players is not None else game.min_players
    options = {}
    for key, spec in game.options.items():
        raw = getattr(args, key)
        options[key] = next(c for c in spec["choices"] if str(c) == raw)
    try:
        state = game.new(players, args.seed, options)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(f"{game.title}: {players} players, seed {args.seed}, options {options}")
    rng = random.Random(args.seed)
    steps = 0
    while not state.is_over() and steps < game.max_game_length:
        seats = state.to_act()
        seat = seats[rng.randrange(len(seats))]
        actions = state.legal_actions(seat)
        action = actions[rng.randrange(len(actions))]
        events = state.apply(seat, action)
        steps += 1
        print(f"seat {seat}: {_fmt(action.to_json())}")
        for event in events:
            if event.visible(None):
                print(f"    {format_event(event)}")
    print(f"\n{steps} decisions. Final scores:")
    for seat, score in enumerate(state.scores()):
        print(f"  seat {seat}: {score}")
    print(f"Winner(s): {', '.join(f'seat {w}' for w in state.winners()) or 'none'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
