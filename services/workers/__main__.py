"""`python -m services.workers`: a bot worker (the container's `entrypoint.sh worker`, and `make run`'s).

    python -m services.workers [--name NODE] [--concurrency N] [--loglevel LEVEL] [celery worker options...]

Checks the service credential, then replaces itself with `celery -A services.workers.app:app worker` on
BOT_QUEUE, prefork pool, so signals reach Celery; options it does not know go to `celery worker` as they are.
"""

from __future__ import annotations

import argparse
import os
import sys

from services.common.entry import require_secret
from services.workers import WORKER_APP
from services.workers.config import load_config


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--name", default="", help="the Celery node name (-n), e.g. worker@HOST")
    parser.add_argument("--concurrency", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--loglevel", default="INFO")
    args, extra = parser.parse_known_args(argv)
    config = load_config()
    settings = config.settings
    require_secret("bot worker", settings.service_secret)  # without it, no move could be submitted
    print(
        f"skyboard bot worker on queue {settings.bot_queue!r} ({args.concurrency} processes), "
        f"submitting to {config.target}",
        flush=True,
    )
    cmd = [
        sys.executable, "-m", "celery", "-A", WORKER_APP, "worker", "-Q", settings.bot_queue,
        *(["-n", args.name] if args.name else []), "--pool=prefork", f"--concurrency={args.concurrency}",
        f"--loglevel={args.loglevel}", "--without-gossip", "--without-mingle", *extra,
    ]
    os.execv(sys.executable, cmd)


if __name__ == "__main__":
    main()
