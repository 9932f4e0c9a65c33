"""`python -m services.archive upgrade [revision]`: apply the SQL migrations to ARCHIVE_URL.

The game-state service and the gateway apply them themselves at start; this is for operators (a one-off job
before a rollout, or a check). `python -m services.archive current` prints the revision in place;
`downgrade <revision>` takes the database back to an earlier revision (a rollback: what later revisions added
is dropped).

The finished games the archive refused are the game-state service's to list and retry, from its Redis:
`python -m services.gamestate.quarantine list|retry` (services/gamestate/quarantine.py).
"""

from __future__ import annotations

import argparse
import asyncio
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
        if args.command == "upgrade":
            await upgrade(engine, args.revision)
        async with engine.connect() as conn:
            current = (await conn.execute(text("SELECT version_num FROM alembic_version"))).scalar_one_or_none()
        print(f"archive at revision {current}")
    finally:
        await engine.dispose()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("command", choices=["upgrade", "downgrade", "current"])
    parser.add_argument("revision", nargs="?", default="head", help="upgrade / downgrade: the revision (default head)")
    parser.add_argument("--url", default=os.environ.get("ARCHIVE_URL") or os.environ.get("GATEWAY_ARCHIVE_URL", ""),
                        help="default: ARCHIVE_URL, else GATEWAY_ARCHIVE_URL")
    args = parser.parse_args()
    if not args.url:
        raise SystemExit("set ARCHIVE_URL or pass --url")
    asyncio.run(_main(args))


if __name__ == "__main__":
    main()
