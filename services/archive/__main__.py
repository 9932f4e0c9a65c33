"""`python -m services.archive upgrade [revision]`: apply the SQL migrations to ARCHIVE_URL.

The game-state service and the gateway apply them themselves at start; this is for operators (a one-off job
before a rollout, or a check). `python -m services.archive current` prints the revision in place;
`downgrade <revision>` takes the database back to an earlier revision (a rollback: what later revisions added
is dropped).

Finished games the archive refused (a value a column cannot hold, a constraint: services/gamestate/archiver.py)
stay in the game-state service's Redis, set aside. `python -m services.archive quarantine` prints one JSON line
per game set aside: its id, game, the database's refusal (kind, error, SQLSTATE, message), attempts, first and
last refusal and next automatic retry (ms; null: none). Once the cause is fixed (a migration, a dropped
constraint), `python -m services.archive retry <game id>...` (or `retry --all`) archives them at once, exactly as
an archive pass would, and prints each one's outcome (archived: gone from Redis; refused: set aside again).
Their Redis is REDIS_URL (or --redis-url), its key prefix KEY_PREFIX (--prefix): the service's own settings.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os

from sqlalchemy import text

from services.archive.db import make_engine
from services.archive.migrate import downgrade, upgrade
from services.common.settings import Settings


async def _quarantine(args: argparse.Namespace, engine) -> None:
    """List the games set aside, or retry them."""
    from services.archive.repository import ArchiveRepository
    from services.common.redis_clients import async_redis
    from services.gamestate.archiver import Archiver
    from services.gamestate.keys import Keys
    from services.gamestate.service import Registry

    redis = async_redis(args.redis_url, cluster=args.cluster, decode_responses=True)
    try:
        archiver = Archiver(redis, Keys(args.prefix), ArchiveRepository(engine), Registry().get, after_s=0)
        if args.command == "quarantine":
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


async def _main(args: argparse.Namespace) -> None:
    engine = make_engine(args.url)
    try:
        if args.command in ("quarantine", "retry"):
            await _quarantine(args, engine)
            return
        if args.command == "downgrade":
            if args.revision == "head":
                raise SystemExit("downgrade needs the revision to go back to (e.g. 0002_accounts)")
            await downgrade(engine, args.revision)
        if args.command == "upgrade":
            await upgrade(engine, args.revision)
        async with engine.connect() as conn:
            current = (await conn.execute(text("SELECT version_num FROM alembic_version"))).scalar_one_or_none()
        print(f"archive at revision {current}")
    finally:
        await engine.dispose()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("command", choices=["upgrade", "downgrade", "current", "quarantine", "retry"])
    parser.add_argument("revision", nargs="*", help="upgrade / downgrade: the revision (default head); "
                        "retry: the game ids")
    parser.add_argument("--all", action="store_true", help="retry: every game set aside")
    parser.add_argument("--url", default=os.environ.get("ARCHIVE_URL") or os.environ.get("GATEWAY_ARCHIVE_URL", ""),
                        help="default: ARCHIVE_URL, else GATEWAY_ARCHIVE_URL")
    parser.add_argument("--redis-url", help="quarantine, retry: the game-state service's Redis (default: REDIS_URL)")
    parser.add_argument("--prefix", help="quarantine, retry: the service's key prefix (default: KEY_PREFIX or sb:)")
    args = parser.parse_args()
    if not args.url:
        raise SystemExit("set ARCHIVE_URL or pass --url")
    games = args.revision
    if args.command != "retry" and len(games) > 1:
        parser.error(f"{args.command} takes at most one revision")
    args.games = games if args.command == "retry" else []
    args.revision = games[0] if games and args.command != "retry" else "head"
    if args.command in ("quarantine", "retry"):
        settings = Settings()
        args.redis_url = args.redis_url or settings.redis_url
        args.prefix = args.prefix if args.prefix is not None else settings.key_prefix
        args.cluster = settings.redis_cluster  # REDIS_CLUSTER: the service's Redis is a cluster
    asyncio.run(_main(args))


if __name__ == "__main__":
    main()
