"""`python -m services.archive upgrade [revision]`: apply the archive's migrations to ARCHIVE_URL.

The game-state service applies them itself at start; this is for operators (a one-off job before a
rollout, or a check). `python -m services.archive current` prints the revision in place.
"""

from __future__ import annotations

import argparse
import asyncio
import os

from sqlalchemy import text

from services.archive.db import make_engine
from services.archive.migrate import upgrade


async def _main(command: str, url: str, revision: str) -> None:
    engine = make_engine(url)
    try:
        if command == "upgrade":
            await upgrade(engine, revision)
        async with engine.connect() as conn:
            current = (await conn.execute(text("SELECT version_num FROM alembic_version"))).scalar_one_or_none()
        print(f"archive at revision {current}")
    finally:
        await engine.dispose()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("command", choices=["upgrade", "current"])
    parser.add_argument("revision", nargs="?", default="head")
    parser.add_argument("--url", default=os.environ.get("ARCHIVE_URL", ""), help="default: ARCHIVE_URL")
    args = parser.parse_args()
    if not args.url:
        raise SystemExit("set ARCHIVE_URL or pass --url")
    asyncio.run(_main(args.command, args.url, args.revision))


if __name__ == "__main__":
    main()
