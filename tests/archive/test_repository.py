"""The archive repository on both backends: idempotent inserts, exact log bytes, history pagination,
and migrations that match the models."""

from __future__ import annotations

import asyncio
import random
import uuid

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext

from services.archive.db import make_engine
from services.archive.migrate import upgrade
from services.archive.models import Base
from services.archive.record import ArchivedGame
from services.archive.repository import ArchiveRepository, BadCursor


def _game(rng: random.Random, *, player: str, game: str = "toybids", status: str = "finished",
          finished_ms: int = 0, digest: str | None = None) -> ArchivedGame:
    lines = [f'{{"v":{i + 1},"seat":{i % 2},"kind":"move","action":{{"bid":{rng.randrange(9)}}},"at_ms":{i}}}'
             for i in range(rng.randrange(1, 30))]
    lines.append('{"v":99,"seat":0,"kind":"move","action":{"say":"caf\\u00e9 \\"q\\" \\n"},"at_ms":1}')
    return ArchivedGame(
        game_id=uuid.uuid4().hex[:16], game=game, players=2, options={"rounds": 3}, seed=rng.randrange(2**63),
        bots={1: "greedy"}, owner=player, seat_players={0: player}, token_hashes={0: "ab" * 32}, resigned=[],
        status=status, version=len(lines), digest=digest or uuid.uuid4().hex * 2, scores=[3, 1], winners=[0],
        rated=False, clock_ms=0, created_ms=finished_ms - 1000, updated_ms=finished_ms, archived_ms=finished_ms + 5,
        log_lines=lines, state_text='{"round":3,"x":"\\u00e9"}',
    )


def run(url: str, fn):
    async def go():
        repo = ArchiveRepository(make_engine(url))
        try:
            return await fn(repo)
        finally:
            await repo.close()

    return asyncio.run(go())


def test_insert_is_idempotent_and_keeps_the_first_row(archive_url):
    rng = random.Random(1)
    player = uuid.uuid4().hex
    games = [_game(rng, player=player, finished_ms=1_000 + i) for i in range(5)]
    extra = _game(rng, player=player, finished_ms=7)

    async def go(repo: ArchiveRepository):
        first = await repo.put_many(games)
        again = await repo.put_many([*games[:3], extra])
        changed = _game(rng, player=player, finished_ms=1)
        changed.game_id = games[0].game_id  # same id, another digest: the stored row wins
        third = await repo.put_many([changed])
        page = await repo.history(player, limit=100)
        return first, again, third, page

    first, again, third, page = run(archive_url, go)
    assert first == {g.game_id: g.digest for g in games}
    assert all(again[g.game_id] == g.digest for g in games[:3]) and len(again) == 4
    assert third == {games[0].game_id: games[0].digest}
    assert sorted(g.game_id for g in page.games) == sorted([*(g.game_id for g in games), extra.game_id])


def test_get_returns_the_exact_log_lines_and_final_state(archive_url):
    g = _game(random.Random(2), player=uuid.uuid4().hex, finished_ms=5)
    got = run(archive_url, lambda repo: _put_get(repo, g))
    assert got.log_lines == g.log_lines  # the same bytes Redis held, line by line
    assert got.state_text == g.state_text and got.digest == g.digest
    assert (got.seed, got.bots, got.seat_players, got.token_hashes) == (g.seed, g.bots, g.seat_players, g.token_hashes)


async def _put_get(repo: ArchiveRepository, g: ArchivedGame) -> ArchivedGame | None:
    await repo.put_many([g])
    assert await repo.get("missing-" + g.game_id) is None
    return await repo.get(g.game_id)


def test_history_is_newest_first_with_cursor_pages_and_filters(archive_url):
    rng = random.Random(3)
    player, other = uuid.uuid4().hex, uuid.uuid4().hex
    games = [
        _game(rng, player=player, game=rng.choice(["toybids", "opensky"]), status=rng.choice(["finished", "aborted"]),
              finished_ms=10_000 + rng.randrange(20))  # ties on finished_ms: the game id breaks them
        for _ in range(23)
    ]
    noise = [_game(rng, player=other, finished_ms=10_005) for _ in range(4)]

    async def go(repo: ArchiveRepository):
        await repo.put_many(games + noise)
        pages, cursor = [], None
        while True:
            page = await repo.history(player, cursor=cursor, limit=5)
            pages.append([g.game_id for g in page.games])
            cursor = page.next_cursor
            if cursor is None:
                return pages, await repo.history(player, game="opensky", status="aborted", limit=100)

    pages, filtered = run(archive_url, go)
    expected = [g.game_id for g in sorted(games, key=lambda g: (g.updated_ms, g.game_id), reverse=True)]
    assert [len(p) for p in pages] == [5, 5, 5, 5, 3]
    assert [gid for p in pages for gid in p] == expected
    want = [g for g in games if g.game == "opensky" and g.status == "aborted"]
    assert sorted(g.game_id for g in filtered.games) == sorted(g.game_id for g in want) and want
    with pytest.raises(BadCursor):
        run(archive_url, lambda repo: repo.history(player, cursor="not*a*cursor"))


def test_migrations_are_idempotent_and_match_the_models(archive_url):
    async def go():
        engine = make_engine(archive_url)
        try:
            await upgrade(engine)  # a second time: nothing to do
            async with engine.connect() as conn:
                return await conn.run_sync(
                    lambda sync: compare_metadata(MigrationContext.configure(sync), Base.metadata)
                )
        finally:
            await engine.dispose()

    assert asyncio.run(go()) == []
