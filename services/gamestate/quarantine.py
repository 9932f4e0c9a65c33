"""`python -m services.gamestate.quarantine list|retry`: the finished games the archive refused, for an operator.

Finished games the archive refused (a value a column cannot hold, a constraint: services/gamestate/archiver.py)
stay in the game-state service's Redis, set aside. `list` prints one JSON line per game set aside: its id, game,
the database's refusal (kind, error, SQLSTATE, message), attempts, first and last refusal and next automatic retry
(ms; null: none). Once the cause is fixed (a migration, a dropped constraint), `retry <game id>...` (or
`retry --all`) archives them at once, exactly as an archive pass would, and prints each one's outcome (archived:
gone from Redis; refused: set aside again); the exit code is 1 unless all were archived. Their Redis is REDIS_URL
(or --redis-url), its key prefix KEY_PREFIX (--prefix): the service's own settings; the archive is ARCHIVE_URL.

Why here and not with the archive's migrations (`python -m services.archive`): the set-aside games are the
game-state service's, in its Redis and its keys, and the archiver that moves them is its own; the archive package
is the store it writes to, and imports nothing of this service.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os

from services.archive.db import make_engine
from services.archive.repository import ArchiveRepository
from services.common.redis_clients import async_redis
from services.common.settings import Settings
from services.gamestate.archiver import Archiver
from services.gamestate.keys import Keys
from services.gamestate.lookup import Registry


async def _run(args: argparse.Namespace) -> None:
    """List the games set aside, or retry them."""
    engine = make_engine(args.url)
    redis = async_redis(args.redis_url, cluster=args.cluster, decode_responses=True)
    try:
        archiver = Archiver(redis, Keys(args.prefix), ArchiveRepository(engine), Registry().get, after_s=0)
        if args.command == "list":
            for entry in await archiver.quarantined():
                print(json.dumps(entry, sort_keys=True))
            return
        if bool(args.games) == args.all:
            raise SystemExit("retry: name the game ids to retry, or pass --all")
        outcomes = await archiver.retry(None if args.all else args.games)
        refusals = {e["game_id"]: e for e in await archiver.quarantined()}
        for gid, outcome in outcomes.items():
            line = {"game_id": gid, "outcome": outcome}
            if gid in refusals and outcome == "refused":
                line["refusal"] = refusals[gid]
            print(json.dumps(line, sort_keys=True))
        if any(o != "archived" for o in outcomes.values()):
            raise SystemExit(1)
    finally:
        await redis.aclose()
        await engine.dispose()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("command", choices=["list", "retry"])
    parser.add_argument("games", nargs="*", help="retry: the game ids")
    parser.add_argument("--all", action="store_true", help="retry: every game set aside")
    parser.add_argument("--url", default=os.environ.get("ARCHIVE_URL") or os.environ.get("GATEWAY_ARCHIVE_URL", ""),
                        help="the archive (default: ARCHIVE_URL, else GATEWAY_ARCHIVE_URL)")
    parser.add_argument("--redis-url", help="the game-state service's Redis (default: REDIS_URL)")
    parser.add_argument("--prefix", help="the service's key prefix (default: KEY_PREFIX or sb:)")
    args = parser.parse_args()
    if not args.url:
        raise SystemExit("set ARCHIVE_URL or pass --url")
    if args.command == "list" and args.games:
        parser.error("list takes no game ids")
    settings = Settings()
    args.redis_url = args.redis_url or settings.redis_url
    args.prefix = args.prefix if args.prefix is not None else settings.key_prefix
    args.cluster = settings.redis_cluster  # REDIS_CLUSTER: the service's Redis is a cluster
    asyncio.run(_run(args))


if __name__ == "__main__":
    main()
