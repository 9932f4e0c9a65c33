"""`python -m research.train label|fit|fit-value|evaluate ...`: the learned-bots pipeline (research/train/README.md).

    python -m research.train label --plan bs2-distill --out research/DATE-NAME/data/bs2-distill-r1 --positions 20000
    python -m research.train fit --ledger research/DATE-NAME/data/bs2-distill-r1/ledger.jsonl \
        --out research/DATE-NAME/models/bs2-r1.npz
    python -m research.train evaluate --model research/DATE-NAME/models/bs2-r1.npz --opponent greedy --deals 100 \
        --ledger research/DATE-NAME/models/bs2-r1.eval.jsonl

An experiment's data, models and ledgers live in its own dated folder of `research/` (research/README.md); a model
that a level plays is copied into `ai/policy/models/` with its card and named by its game's profile (`ai.games`).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from ai.policy import one_blas_thread
from research.lab import background


def add_fit_arguments(parser: argparse.ArgumentParser, epochs: int) -> None:
    """The arguments every fit takes: its ledgers, model file, network size and optimiser, held-out games, seed."""
    parser.add_argument("--ledger", action="append", required=True, help="a ledger (.jsonl or .jsonl.gz); repeatable")
    parser.add_argument("--out", required=True, help="model file (.npz); its card goes beside it (.card.json)")
    parser.add_argument("--hidden", type=int, default=32, help="hidden units (0: linear)")
    parser.add_argument("--epochs", type=int, default=epochs)
    parser.add_argument("--lr", type=float, default=3e-3)
    parser.add_argument("--weight-decay", type=float, default=1e-4)
    parser.add_argument("--holdout", type=int, default=5, help="every n-th game (by game index) is held out")
    parser.add_argument("--seed", type=int, default=0)


def main(argv: list[str] | None = None) -> None:
    background.yield_cpu_to_others()  # started niced with setsid, it yields to other sessions too
    parser = argparse.ArgumentParser(prog="python -m research.train", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    label = sub.add_parser("label", help="the resumable labelling job (research.train.label)")
    label.add_argument("--plan", default="bs2-distill")
    label.add_argument("--out", required=True, help="run directory: ledger.jsonl, manifest.json, pid, progress.log")
    label.add_argument("--positions", type=int, default=8000, help="stop once the ledger holds this many")
    label.add_argument("--games", type=int, default=None, help="or once it holds this many games")
    label.add_argument("--then", action="append", default=[], metavar="PLAN:OUT:POSITIONS",
                       help="a plan to label next, in the same process, once this one is done (repeatable)")
    label.add_argument("--iterations", type=int, default=None, help="the teacher's iteration cap (default: its "
                       "level's free-core cap, ai.levels.CappedBot)")
    label.add_argument("--shard", default=None, metavar="K/N",
                       help="label game indices K, K+N, ... only (one run directory a shard; N processes, N cores)")
    fit = sub.add_parser("fit", help="train the action scorer on ledgers (research.train.fit; needs torch)")
    add_fit_arguments(fit, epochs=400)
    fit.add_argument("--target-power", type=float, default=1.0, help="targets: visits**p, normalized (1: shares)")
    fit.add_argument("--loss", choices=("regress", "listwise"), default="regress",
                     help="gain labels (plan A): regress the gain over the rule, or softmax(gain / T) listwise")
    fit.add_argument("--temperature", type=float, default=0.05, help="gain labels, listwise: T (label units)")
    fit.add_argument("--se-floor", type=float, default=0.05,
                     help="gain labels, regress: a candidate's weight is 1 / (se^2 + floor^2)")
    fit.add_argument("--top", type=int, default=6, help="gain labels: the model corrects among the rule's top n")
    fv = sub.add_parser("fit-value", help="train a position value model on ledgers (research.train.fit_value; torch)")
    add_fit_arguments(fv, epochs=600)
    fv.add_argument("--q-weight", type=float, default=1.0,
                    help="weight of a position's root mean results (all together) beside its outcome's 1")
    fv.add_argument("--rank-weight", type=float, default=0.0,
                    help="weight of the siblings' ranking: centred logits regress the centred logit of their mean "
                         "results (what a search compares at its leaves)")
    fv.add_argument("--min-visits", type=int, default=20, help="a root edge's mean result is a label from this many")
    ev = sub.add_parser("evaluate", help="paired games of the policy against a ladder level (research.train.evaluate)")
    ev.add_argument("--model", required=True)
    ev.add_argument("--opponent", default="greedy")
    ev.add_argument("--game", default="blueskies")
    ev.add_argument("--players", type=int, default=2)
    ev.add_argument("--deals", type=int, default=100, help="deals; games = deals x line-ups")
    ev.add_argument("--seed", type=int, default=35,
                    help="evaluation deals are research.lab.tournament.game_seed(seed, i)")
    ev.add_argument("--ledger", default=None, help="evaluation ledger (JSONL); resumes")
    ev.add_argument("--workers", type=int, default=1)
    ev.add_argument("--report", action="store_true", help="play nothing: summarise the --ledger's games")
    ev.add_argument("--rule", type=json.loads, default=None, metavar="JSON",
                    help="RuleParams fields of the rule the model corrects (as the game profile's rule_params)")
    ev.add_argument("--solo", action="store_true",
                    help="one model seat against the opponent in every other seat (fair share 1/players)")
    ev.add_argument("--baseline", default=None, metavar="LEDGER",
                    help="another model's evaluation ledger: add the paired difference in the games both played")
    args = parser.parse_args(argv)
    one_blas_thread()
    if args.command == "label":
        from research.train.label import parse_shard, run_job

        shard = parse_shard(args.shard)
        queue = [(args.plan, args.out, args.positions)]
        for item in args.then:
            plan, out, count = item.split(":")
            queue.append((plan, out, int(count)))
        for i, (plan, out, count) in enumerate(queue):
            run_job(plan, Path(out), count, args.games if i == 0 else None, args.iterations,
                    shard if i == 0 else (0, 1))
    elif args.command == "fit":
        from research.train.fit import fit as run_fit

        card = run_fit([Path(p) for p in args.ledger], Path(args.out), args.hidden, args.epochs, args.lr,
                       args.weight_decay, args.holdout, args.seed, power=args.target_power, loss=args.loss,
                       temperature=args.temperature, se_floor=args.se_floor, top=args.top)
        print(json.dumps({"metrics": card["metrics"], "play": card.get("play"),
                          "data": {k: card["data"][k] for k in ("positions", "games")},
                          "model": card["model"], "model_sha256": card["model_sha256"]}, indent=1))
    elif args.command == "fit-value":
        from research.train.fit_value import fit_value

        card = fit_value([Path(p) for p in args.ledger], Path(args.out), args.hidden, args.epochs, args.lr,
                         args.weight_decay, args.holdout, args.seed, args.q_weight, args.min_visits,
                         rank_weight=args.rank_weight)
        print(json.dumps({"metrics": card["metrics"], "data": {k: card["data"][k] for k in ("positions", "games")},
                          "model": card["model"], "model_sha256": card["model_sha256"]}, indent=1))
    else:
        from research.train.evaluate import evaluate

        report = evaluate(args.model, args.opponent, args.game, args.players, args.deals, args.seed, args.ledger,
                          args.workers, args.report, args.solo, args.rule, args.baseline)
        print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main(sys.argv[1:])
