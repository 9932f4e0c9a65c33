"""`python -m services.archive upgrade [revision]`: apply the SQL migrations to ARCHIVE_URL.

The game-state service and the gateway apply them themselves at start; this is for operators (a one-off job
before a rollout, or a check). `python -m services.archive current` prints the revision in place;
`downgrade <revision>` takes the database back to an earlier revision (a rollback: what later revisions added
is dropped).
`python -m services.archive import-redis` (after `upgrade`) copies the gateway's former Redis records of
players, API-key hashes, ratings and settled rated games into SQL, inserting only what is missing (safe to
run again); Redis from GATEWAY_REDIS_URL (or --redis-url), its key prefix from GATEWAY_KEY_PREFIX (--prefix).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os

from sqlalchemy import text

from services.archive.db import make_engine
from services.archive.migrate import downgrade, upgrade


async def _main(args: argparse.Namespace) -> None:
    engine = make_engine(args.url)
    try:
        if args.command == "downgrade":
            if args.revision == "head":
                raise SystemExit("downgrade needs the revision to go back to (e.g. 0002_accounts)")
            await downgrade(engine, args.revision)
        if args.command in ("upgrade", "import-redis"):
            await upgrade(engine, args.revision if args.command == "upgrade" else "head")
        if args.command == "import-redis":
            from services.archive.accounts import AccountRepository
            from services.archive.import_redis import import_redis
            from services.redis_clients import async_redis

            redis = async_redis(args.redis_url)
            try:
                counts = await import_redis(redis, args.prefix, AccountRepository(engine))
            finally:
                await redis.aclose()
            print(json.dumps(counts, sort_keys=True))
        async with engine.connect() as conn:
            current = (await conn.execute(text("SELECT version_num FROM alembic_version"))).scalar_one_or_none()
        print(f"archive at revision {current}")
    finally:
        await engine.dispose()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("command", choices=["upgrade", "downgrade", "current", "import-redis"])
    parser.add_argument("revision", nargs="?", default="head")
    parser.add_argument("--url", default=os.environ.get("ARCHIVE_URL") or os.environ.get("GATEWAY_ARCHIVE_URL", ""),
                        help="default: ARCHIVE_URL, else GATEWAY_ARCHIVE_URL")
    parser.add_argument("--redis-url", default=os.environ.get("GATEWAY_REDIS_URL", "redis://127.0.0.1:6379/0"),
                        help="import-redis: the gateway's Redis (default: GATEWAY_REDIS_URL)")
    parser.add_argument("--prefix", default=os.environ.get("GATEWAY_KEY_PREFIX", "sbgw:"),
                        help="import-redis: the gateway's key prefix (default: GATEWAY_KEY_PREFIX or sbgw:)")
    args = parser.parse_args()
    if not args.url:
        raise SystemExit("set ARCHIVE_URL or pass --url")
    asyncio.run(_main(args))


if __name__ == "__main__":
    main()
