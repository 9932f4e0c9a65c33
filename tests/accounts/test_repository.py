"""The accounts repository on both backends: exactly-once settlement under concurrency (several engines, as
several gateways and matchmakers), no lost update between games sharing a player, rotation, the leaderboard."""

from __future__ import annotations

import asyncio
import uuid

from services.accounts.repository import AccountRepository, KeyRetired, Skill, TooManyKeys
from services.archive.db import make_engine

DEFAULT: Skill = (25.0, 25.0 / 3, 0)


def _plus(before: dict[int, Skill]) -> dict[int, Skill]:
    """A stand-in for openskill: +1 mu and one more game per seat (so lost updates show)."""
    return {seat: (mu + 1.0, sigma * 0.9, n + 1) for seat, (mu, sigma, n) in before.items()}


async def _with(url: str, n: int, fn):
    engines = [make_engine(url) for _ in range(n)]
    try:
        return await fn([AccountRepository(e) for e in engines])
    finally:
        for e in engines:
            await e.dispose()


async def _players(repo: AccountRepository, n: int, kind: str = "human") -> list[str]:
    ids = [uuid.uuid4().hex for _ in range(n)]
    for pid in ids:
        await repo.create_player(pid, f"p{pid[:4]}", kind, uuid.uuid4().hex * 2, 5)
    return ids


def test_one_game_settled_concurrently_applies_once(archive_url) -> None:
    async def go(repos: list[AccountRepository]):
        a, b = await _players(repos[0], 2)
        game_id = uuid.uuid4().hex
        results = await asyncio.gather(*(
            repos[i % len(repos)].settle(game_id, "toybids", {0: a, 1: b}, _plus, 1000 + i, DEFAULT)
            for i in range(12)
        ))
        again = await repos[0].settle(game_id, "toybids", {0: a, 1: b}, _plus, 5000, DEFAULT)
        return results, again, await repos[0].rating(a, "toybids"), await repos[0].is_settled(game_id)

    results, again, rating, settled = asyncio.run(_with(archive_url, 3, go))
    assert sum(results) == 1 and not again and settled
    assert rating[0] == 26.0 and rating[2] == 1


def test_games_sharing_a_player_settled_at_once_lose_no_update(archive_url) -> None:
    async def go(repos: list[AccountRepository]):
        shared, *others = await _players(repos[0], 9)
        await asyncio.gather(*(
            repos[i % len(repos)].settle(uuid.uuid4().hex, "toybids", {0: other, 1: shared}, _plus, 10, DEFAULT)
            for i, other in enumerate(others)
        ))
        return await repos[0].rating(shared, "toybids")

    mu, _sigma, games = asyncio.run(_with(archive_url, 3, go))
    assert (mu, games) == (33.0, 8)


def test_a_discarded_game_never_settles(archive_url) -> None:
    async def go(repos: list[AccountRepository]):
        (a,) = await _players(repos[0], 1)
        game_id = uuid.uuid4().hex
        first, second = await repos[0].discard(game_id, "toybids", 1), await repos[0].discard(game_id, "toybids", 2)
        settled = await repos[0].settle(game_id, "toybids", {0: a}, _plus, 3, DEFAULT)
        return first, second, settled, await repos[0].rating(a, "toybids")

    assert asyncio.run(_with(archive_url, 1, go)) == (True, False, False, None)


def test_rotation_keeps_one_current_key_and_never_extends_a_grace(archive_url) -> None:
    async def go(repos: list[AccountRepository]):
        repo = repos[0]
        pid = uuid.uuid4().hex
        k0, k1, k2, k3 = (uuid.uuid4().hex * 2 for _ in range(4))
        await repo.create_player(pid, "rot", "bot", k0, 100)
        r1 = await repo.rotate(pid, k0, k1, 1000, 200)  # k0 in grace until 1200
        try:
            await repo.rotate(pid, k0, k2, 1000, 250)  # a key in its grace cannot rotate (nor extend its grace)
            retired = None
        except KeyRetired as exc:
            retired = exc.expires_ms
        r2 = await repo.rotate(pid, k1, k2, 1000, 300)  # the current key: k1 in grace until 1300
        owners = [await repo.key_owner(k, 1100) for k in (k0, k1, k2)]
        late = await repo.key_owner(k0, 1300)
        r3 = await repo.rotate(pid, k2, k3, 0, 1400)  # no grace: k2 stops at once (k1 expired already)
        after = [await repo.key_owner(k, 1400) for k in (k1, k2, k3)]
        return r1, retired, r2, owners, late, r3, after, (await repo.player(pid)).kind

    r1, retired, r2, owners, late, r3, after, kind = asyncio.run(_with(archive_url, 1, go))
    assert list(r1.values()) == [1200]
    assert retired == 1200
    assert list(r2.values()) == [1300]  # k0 keeps 1200, k1 (the replaced current key) gets 1300
    assert [o[1] if o else None for o in owners] == [1200, 1300, None] and all(owners)
    assert late is None
    assert set(r3.values()) == {None}
    assert after[:2] == [None, None] and after[2] is not None and kind == "bot"


def test_the_current_key_revokes_the_others_and_a_retired_one_cannot(archive_url) -> None:
    async def go(repos: list[AccountRepository]):
        repo = repos[0]
        pid = uuid.uuid4().hex
        k0, k1, k2 = (uuid.uuid4().hex * 2 for _ in range(3))
        await repo.create_player(pid, "rev", "human", k0, 100)
        await repo.rotate(pid, k0, k1, 1000, 200)
        await repo.rotate(pid, k1, k2, 1000, 300, max_keys=3)
        try:
            await repo.rotate(pid, k2, uuid.uuid4().hex * 2, 1000, 400, max_keys=3)
            full = None
        except TooManyKeys as exc:
            full = exc.working
        try:
            await repo.revoke_others(pid, k0, 400)
            refused = False
        except KeyRetired:
            refused = True
        revoked = await repo.revoke_others(pid, k2, 400)
        return full, refused, sorted(revoked), [await repo.key_owner(k, 400) for k in (k0, k1, k2)], (k0, k1)

    full, refused, revoked, owners, (k0, k1) = asyncio.run(_with(archive_url, 1, go))
    assert full == 3 and refused
    assert revoked == sorted([k0, k1])
    assert owners[:2] == [None, None] and owners[2] is not None


def test_the_leaderboard_is_by_ordinal_with_names_and_kinds(archive_url) -> None:
    async def go(repos: list[AccountRepository]):
        repo = repos[0]
        game = f"g{uuid.uuid4().hex[:8]}"  # a game of its own: the database is shared
        humans = await _players(repo, 3)
        (bot,) = await _players(repo, 1, "bot")
        skills = {humans[0]: (30.0, 2.0), humans[1]: (40.0, 8.0), humans[2]: (28.0, 1.0), bot: (35.0, 3.0)}
        for i, (pid, (mu, sigma)) in enumerate(skills.items()):
            await repo.settle(uuid.uuid4().hex, game, {0: pid}, lambda _b, m=mu, s=sigma: {0: (m, s, 1)}, i,
                              DEFAULT)
        return humans, bot, await repo.leaderboard(game, 10), await repo.leaderboard(game, 2, 1)

    humans, bot, board, page = asyncio.run(_with(archive_url, 1, go))
    # ordinals: bot 26, h2 25, h0 24, h1 16
    assert [r.player_id for r in board] == [bot, humans[2], humans[0], humans[1]]
    assert board[0].kind == "bot" and board[1].kind == "human" and board[1].name.startswith("p")
    assert [r.player_id for r in page] == [humans[2], humans[0]]
