"""Start a bot worker (used by `make run` next to the game-state service).

    python -m services.workers.run [--concurrency N]

Replaces itself with `celery -A services.workers.app worker` on BOT_QUEUE,
prefork pool (one process per core by default), so signals reach Celery.
"""

from __future__ import annotations

import argparse
import os
import sys

from services.credentials import CredentialError
from services.workers.config import load_config


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--concurrency", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--loglevel", default="INFO")
    args = parser.parse_args(argv)
    config = load_config()
    settings = config.settings
    try:
        settings.secret()  # a worker without the service credential could never submit a move
    except CredentialError as exc:
        sys.exit(f"skyboard bot worker: {exc}")
    print(
        f"skyboard bot worker on queue {settings.bot_queue!r} ({args.concurrency} processes), "
        f"submitting to {config.target}",
        flush=True,
    )
    cmd = [
        sys.executable, "-m", "celery", "-A", "services.workers.app", "worker", "-Q", settings.bot_queue,
        "--pool=prefork", f"--concurrency={args.concurrency}", f"--loglevel={args.loglevel}",
        "--without-gossip", "--without-mingle",
    ]
    os.execv(sys.executable, cmd)


if __name__ == "__main__":
    main()
