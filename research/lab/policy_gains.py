"""How much one decision can gain over the greedy rule when everyone plays the rule afterwards.

    python -m research.lab.policy_gains --game opensky --players 2 --positions 8 --rounds 60 \
        --kinds place_callsign,place_aircraft,choose_market,bid,lease

Greedy self-play games are played (game g: seed --seed + g) and, per decision kind, the first
`--positions` positions sampled (every `--every`-th decision with a choice) are kept. At each, the
rule's best-ranked `--candidates` actions (`Heuristic.ranked`) are played out to the end with every
seat on the rule, `--rounds` times, all candidates of a round from the same determinization and dice
(`ISMCTSBot._playout`). A candidate's *gain* is its mean paired difference from the rule's choice in
the observer's final margin over the best other seat (in thousands of points). Reported per kind:
the mean best gain (biased upward: the best of several noisy means), and how many positions had an
alternative better than the rule's choice by more than two standard errors, with their mean gain.

This is the rollout algorithm's one-step policy improvement measured directly: if no kind shows
significant gains, a search that plays against this rule cannot beat it by much one decision at a time.
"""

from __future__ import annotations

import argparse
import dataclasses
import random
from collections import defaultdict
from dataclasses import dataclass, field

import engine
from ai.heuristics import for_game
from ai.ismcts import ISMCTSBot, SearchConfig, mean_and_error
from ai.levels import SEARCH
from research.lab.selfplay import greedy_positions


@dataclass(slots=True)
class KindGains:
    """Per decision kind: each sampled position's best gain and whether it cleared two standard errors."""

    best: list[float] = field(default_factory=list)
    significant: list[float] = field(default_factory=list)


def paired_gains(rewards: list[list[float]]) -> list[tuple[float, float]]:
    """(mean, standard error) of each candidate's per-round difference from candidate 0's reward."""
    return [mean_and_error([r - r0 for r, r0 in zip(column, rewards[0], strict=True)]) for column in rewards]


def policy_gains(game: str, players: int, kinds: list[str], positions: int, rounds: int, candidates: int,
                 seed: int = 2000, every: int = 3, max_games: int = 40) -> dict[str, KindGains]:
    """Per kind, the sampled positions' best paired gains over the rule (see the module docstring)."""
    heuristic = for_game(game)
    config: SearchConfig = dataclasses.replace(SEARCH["mcts-normal"], playout_reward="margin")
    bot = ISMCTSBot("policy-gains", config)
    out: dict[str, KindGains] = defaultdict(KindGains)
    for g in range(max_games):
        if all(len(out[k].best) >= positions for k in kinds):
            break
        rng = random.Random((seed + g) * 7919 + 1)  # the playouts' own, apart from the game's
        for state, seat, legal, _step in greedy_positions(game, players, seed + g, every):
            kind = legal[-1].TYPE
            if kind not in kinds or len(out[kind].best) >= positions:
                continue
            ranked = heuristic.ranked(state.determinize(seat, rng), seat, legal, rng)[:candidates]
            rewards: list[list[float]] = [[] for _ in ranked]
            for _ in range(rounds):
                round_seed = rng.getrandbits(64)
                for i, action in enumerate(ranked):
                    rewards[i].append(bot._playout(state, seat, action, round_seed, heuristic))
            gains = paired_gains(rewards)[1:]
            best, error = max(gains, default=(0.0, 0.0))
            out[kind].best.append(best)
            if best > 2 * error:
                out[kind].significant.append(best)
    return {k: out[k] for k in kinds}


def main(argv: list[str] | None = None) -> dict[str, KindGains]:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--game", required=True, choices=engine.games())
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--kinds", required=True, help="comma-separated decision kinds (action TYPEs)")
    parser.add_argument("--positions", type=int, default=8, help="positions sampled per kind")
    parser.add_argument("--rounds", type=int, default=60, help="paired playouts per candidate")
    parser.add_argument("--candidates", type=int, default=6)
    parser.add_argument("--seed", type=int, default=2000)
    parser.add_argument("--every", type=int, default=3)
    args = parser.parse_args(argv)
    kinds = [k for k in args.kinds.split(",") if k]
    if not kinds:
        parser.error("--kinds needs at least one decision kind")
    for name, value in (("--positions", args.positions), ("--rounds", args.rounds), ("--candidates", args.candidates)):
        if value < (2 if name != "--positions" else 1):
            parser.error(f"{name} {value} is too small")
    found = policy_gains(args.game, args.players, kinds, args.positions, args.rounds, args.candidates,
                         args.seed, args.every)
    print(f"{args.game}, {args.players} players: best of the rule's top {args.candidates} against its choice, "
          f"{args.rounds} paired playouts each; gains in thousands of points of final margin")
    print(f"{'kind':<18}{'positions':>10}{'mean best gain':>16}{'significant (>2 SE)':>22}{'their mean gain':>17}")
    for kind, gains in found.items():
        n, sig = len(gains.best), gains.significant
        mean = sum(gains.best) / n if n else float("nan")
        sig_mean = sum(sig) / len(sig) if sig else 0.0
        print(f"{kind:<18}{n:>10}{mean:>+16.3f}{f'{len(sig)} of {n}':>22}{sig_mean:>+17.3f}")
    return found


if __name__ == "__main__":
    main()
