"""`python -m ai.train label|fit|evaluate|latency ...`: the learned-bots pipeline (ai/train/README.md)."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m ai.train", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    label = sub.add_parser("label", help="the resumable labelling job (ai.train.label)")
    label.add_argument("--plan", default="bs2-distill")
    label.add_argument("--out", required=True, help="run directory: ledger.jsonl, manifest.json, pid, progress.log")
    label.add_argument("--positions", type=int, default=8000, help="stop once the ledger holds this many")
    label.add_argument("--games", type=int, default=None, help="or once it holds this many games")
    args, rest = parser.parse_known_args(argv)
    if args.command == "label":
        if rest:
            parser.error(f"unknown arguments {rest}")
        os.environ.setdefault("OMP_NUM_THREADS", "1")
        from ai.train.label import run_job

        run_job(args.plan, Path(args.out), args.positions, args.games)


if __name__ == "__main__":
    main(sys.argv[1:])
