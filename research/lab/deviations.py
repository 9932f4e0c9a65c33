"""Where a search level overrules the greedy rule, by decision kind and iteration budget.

    python -m research.lab.deviations --game opensky --players 2 --games 6 --iterations 1000,3000

Greedy self-play games are played (game g: seed --seed + g); at every `--every`-th decision with a choice,
`mcts-normal`'s settings decide the same position at each iteration cap, and each choice that differs
from the greedy rule's is counted under the decision kind (the `TYPE` of the last legal action). Kinds
the search leaves to the rule (`rule_kinds`) are skipped. Both decide with the same seeded RNG, but
the rule breaks ties at random, so a kind with tied rule choices shows some difference at any budget.
A search whose strength falls as its budget grows shows here where it goes wrong: the kinds whose share
of overruled decisions grows with the budget.

    python -m research.lab.deviations --game opensky --players 2 --games 20 --iterations 1000 --value 60

`--value R` also says whether the overruling was right: each decision the search (at the first cap) made
otherwise is played out R times both ways, the search's choice and the rule's, with every seat on the
greedy rule afterwards and both ways from the same determinization and dice each round
(`ISMCTSBot._playout_end`). Per kind it prints the mean paired gain of the search's choice, in result (the
search's own reward, `ai.outcome`: win share, with a quarter weight on rank share beyond 2 players) and
in final margin, with its standard error over the overruled decisions. Tournaments are too noisy to show
what one kind of decision is worth (a 200-game table has a standard error of 3.5 points); this measures
it where it happens, but against a greedy future, the bot's own seat included. It screens for plain
errors; it does not rank a searching player's choices (in 4-player OpenSky it put the search's market
choices below the rule's, and the rule's won less in play: bench/RESULTS.md, twelfth session).
"""

from __future__ import annotations

import argparse
import random
from collections import defaultdict

import engine
from ai.bot import Budget
from ai.greedy import GreedyBot
from ai.heuristics import for_game
from ai.ismcts import ISMCTSBot, final_margin, mean_and_error
from ai.levels import make_bot
from ai.outcome import WIN_WEIGHT, terminal_rewards
from research.lab.selfplay import greedy_positions


def _paired_gain(state, seat: int, choice, rule_choice, seed: int, heuristic) -> tuple[float, float]:
    """(result, margin in thousands) of `choice` minus those of `rule_choice`, both played out once with greedy
    play from the same determinization and dice; result is the search's own reward (`ai.outcome`)."""
    ends = [ISMCTSBot._playout_end(state, seat, action, seed, heuristic) for action in (choice, rule_choice)]
    results = [terminal_rewards(end, WIN_WEIGHT)[seat] for end in ends]
    margins = [final_margin(end.scores(), seat) / 1000.0 for end in ends]
    return results[0] - results[1], margins[0] - margins[1]


def deviations(game: str, players: int, games: int, iterations: list[int], seed: int = 1000,
               every: int = 2, value_rounds: int = 0,
               values: dict[str, list[tuple[float, float]]] | None = None) -> dict[str, list[int]]:
    """Per decision kind: [decisions sampled, then per iteration cap how many the search decided otherwise].
    With `value_rounds`, each decision overruled at the first cap is valued into `values[kind]`: the mean
    paired (result, margin in thousands) gain of the search's choice over the rule's."""
    heuristic = for_game(game)
    ruled = heuristic.rule_kinds
    counts: dict[str, list[int]] = defaultdict(lambda: [0] * (1 + len(iterations)))
    greedy = GreedyBot()
    for g in range(games):
        playout_rng = random.Random((seed + g) * 7919 + 5)
        for state, seat, legal, step in greedy_positions(game, players, seed + g, every):
            kind = legal[-1].TYPE
            if kind in ruled:
                continue
            rule_choice = greedy.choose(state, seat, random.Random(step))
            row = counts[kind]
            row[0] += 1
            for j, cap in enumerate(iterations):
                search = make_bot("mcts-normal")
                choice = search.choose(state, seat, random.Random(step), Budget(iterations=cap))
                row[1 + j] += choice != rule_choice
                if j == 0 and value_rounds and values is not None and choice != rule_choice:
                    gains = [_paired_gain(state, seat, choice, rule_choice, playout_rng.getrandbits(64), heuristic)
                             for _ in range(value_rounds)]
                    values.setdefault(kind, []).append(
                        (sum(r for r, _ in gains) / value_rounds, sum(m for _, m in gains) / value_rounds))
    return dict(counts)


def main(argv: list[str] | None = None) -> dict[str, list[int]]:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--game", required=True, choices=engine.games())
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--games", type=int, default=6)
    parser.add_argument("--iterations", default="1000,3000", help="comma-separated iteration caps")
    parser.add_argument("--seed", type=int, default=1000)
    parser.add_argument("--every", type=int, default=2)
    parser.add_argument("--value", type=int, default=0, metavar="R",
                        help="value each overruled decision by R paired greedy playouts of both choices")
    args = parser.parse_args(argv)
    if args.value < 0:
        parser.error("--value needs a number of rounds of at least 0")
    try:
        caps = [int(x) for x in args.iterations.split(",")]
    except ValueError:
        parser.error(f"--iterations {args.iterations!r} is not a comma-separated list of integers")
    if not caps or min(caps) < 1:
        parser.error("--iterations needs caps of at least 1")
    values: dict[str, list[tuple[float, float]]] = {}
    counts = deviations(args.game, args.players, args.games, caps, args.seed, args.every, args.value, values)
    print(f"{args.game}, {args.players} players, {args.games} greedy self-play games, every {args.every}th decision")
    print(f"{'kind':<18}{'sampled':>8}" + "".join(f"{f'overruled @{c}':>20}" for c in caps))
    for kind, (n, *differ) in sorted(counts.items()):
        print(f"{kind:<18}{n:>8}" + "".join(f"{f'{d} ({d / n:.0%})':>20}" for d in differ))
    if args.value:
        print(f"search's choice minus the rule's where it overruled at {caps[0]} iterations "
              f"({args.value} paired greedy playouts each; mean ± standard error over the decisions)")
        print(f"{'kind':<18}{'valued':>8}{'result':>20}{'margin':>16}")
        for kind, rows in sorted(values.items()):
            win, win_se = mean_and_error([w for w, _ in rows])
            margin, margin_se = mean_and_error([m * 1000 for _, m in rows])
            print(f"{kind:<18}{len(rows):>8}{win:>+13.3f} ± {win_se:.3f}{margin:>+9.0f} ± {margin_se:.0f}")
    return counts


if __name__ == "__main__":
    main()
