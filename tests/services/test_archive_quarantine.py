"""One game the database refuses never holds back the others: real refusals on real databases.

Each test archives into a database of its own and makes the database itself refuse one game, without mocks: a CHECK
constraint (PostgreSQL) or a trigger (SQLite) refusing that game's id, or (PostgreSQL) `turn_ms` put back to the
INTEGER it was before migration 0003, which a 30-day correspondence game overflows. The other games of the batch
are archived and leave Redis; the refused one stays in Redis, readable, set aside with the database's refusal,
counted; passes do not retry it in a loop (the INSERT statements that carried it are counted on the engine); once
the refusal is gone, the operator's `python -m services.gamestate.quarantine retry` archives it and it leaves
Redis. A database that cannot be reached sets nothing aside.
"""

from __future__ import annotations

import json
import random
import time
from collections.abc import Iterator

import pytest
from prometheus_client import REGISTRY
from sqlalchemy import event

from services.archive.db import make_engine
from services.archive.repository import ArchiveRepository
from services.gamestate.archiver import Archiver
from services.gamestate.keys import Keys
from services.gamestate.pb import pb2
from tests.archive_db import own_archive, require_postgres
from tests.services.archive_helpers import (
    archived,
    finished_games,
    leftover_keys,
    quarantine_cli,
    refuse,
    replayed_digest,
    sql,
    stop_refusing,
)
from tests.services.helpers import play_random

CORRESPONDENCE = {"kind": "correspondence", "days_per_decision": 30}  # 2.592e9 ms per decision: past INTEGER


@pytest.fixture(params=["postgresql", "sqlite"])
def own_url(request: pytest.FixtureRequest, tmp_path) -> Iterator[str]:
    """A migrated archive of this test alone, on each backend."""
    with own_archive(request.param, tmp_path, "quarantine") as url:
        yield url


class InsertCounter:
    """Counts the INSERT statements into archived_games whose parameters carry a given game id, on a real engine."""

    def __init__(self, repo: ArchiveRepository, game_id: str):
        self.game_id = game_id
        self.count = 0
        event.listen(repo.engine.sync_engine, "before_cursor_execute", self._seen)

    def _seen(self, _conn, _cursor, statement, parameters, _context, _many) -> None:
        if statement.lstrip().upper().startswith("INSERT INTO ARCHIVED_GAMES ") and self.game_id in repr(parameters):
            self.count += 1


def _archiver(inst, url: str, **kw) -> tuple[Archiver, ArchiveRepository]:
    repo = ArchiveRepository(make_engine(url))
    store = inst.running.service.store
    return Archiver(store.redis, store.keys, repo, inst.running.service.registry.get, after_s=0, **kw), repo


def _refusals(kind: str) -> float:
    return REGISTRY.get_sample_value("skyboard_archive_refusals_total", {"kind": kind}) or 0.0


def _held() -> float | None:
    return REGISTRY.get_sample_value("skyboard_archive_quarantined_games")


def _views(client, game) -> tuple:
    seat = client.get_game(game.game_id, game.token(0))
    spectator = client.get_game(game.game_id)
    raw_log = client.stub.GetLog(pb2.GetLogRequest(game_id=game.game_id)).SerializeToString()
    return spectator.status, spectator.version, spectator.digest, spectator.view, seat.view, seat.scores, raw_log


@pytest.mark.slow  # five games, then the operator's CLI run three times per backend: `make test-slow`
def test_one_refused_game_leaves_its_batch_archived_and_waits_for_the_operator(
    make_instance, make_client, rdb, prefix, settings, registry, own_url
):
    inst = make_instance(archive_url=own_url, archive_interval_s=0)  # reads fall back to it; archiving by hand
    client = make_client(inst)
    games = finished_games(client, 5, seed=31)
    bad = games[2]
    good = [g for g in games if g is not bad]
    refuse(own_url, bad.game_id)
    before = _views(client, bad)
    token_hashes = [v for f, v in rdb.hgetall(Keys(prefix).meta(bad.game_id)).items() if f.startswith("tok:")]
    assert token_hashes
    refused_before = _refusals("constraint")
    archiver, repo = _archiver(inst, own_url, batch=10)
    inserts = InsertCounter(repo, bad.game_id)
    try:
        assert inst.run(archiver.archive_once()) == 4  # one batch: every game but the refused one left Redis
        assert leftover_keys(rdb, prefix, [g.game_id for g in good]) == []
        assert leftover_keys(rdb, prefix, [bad.game_id])  # still in Redis ...
        assert _views(client, bad) == before  # ... and reads exactly as before
        assert inserts.count == 2  # the batch, then the game alone in its own transaction

        (held,) = inst.run(archiver.quarantined())
        assert held["game_id"] == bad.game_id and held["game"] == "toybids" and held["status"] == "finished"
        assert held["kind"] == "constraint" and held["attempts"] == 1 and held["digest"] == before[2]
        if own_url.startswith("postgresql"):
            assert (held["error"], held["sqlstate"]) == ("CheckViolationError", "23514")
            assert 'violates check constraint "refuse_one"' in held["message"]
        else:
            assert (held["error"], held["message"]) == ("IntegrityError", "refused by the test trigger")
        assert 3_500_000 < held["retry_at_ms"] - time.time() * 1000 <= 3_600_000  # ARCHIVE_RETRY_S: an hour
        text_kept = json.dumps(held)
        assert not any(h in text_kept for h in token_hashes) and "sbt_" not in text_kept and "INSERT" not in text_kept
        assert _refusals("constraint") == refused_before + 1
        assert _held() == 1

        for _ in range(5):  # later passes leave it aside: no attempt, no new refusal
            assert inst.run(archiver.archive_once()) == 0
        assert inserts.count == 2
        assert inst.run(archiver.quarantined())[0]["attempts"] == 1
        assert _refusals("constraint") == refused_before + 1

        code, lines = quarantine_cli(own_url, settings, "retry", bad.game_id)  # the cause is still there: refused again
        assert code == 1 and lines[0]["outcome"] == "refused" and lines[0]["refusal"]["attempts"] == 2
        stop_refusing(own_url)
        code, lines = quarantine_cli(own_url, settings, "list")
        assert code == 0 and [(e["game_id"], e["attempts"]) for e in lines] == [(bad.game_id, 2)]
        code, lines = quarantine_cli(own_url, settings, "retry", bad.game_id, "not-a-game")
        assert lines == [{"game_id": bad.game_id, "outcome": "archived"},
                         {"game_id": "not-a-game", "outcome": "not quarantined"}]
        assert code == 1  # not every named game was archived
        assert leftover_keys(rdb, prefix, [bad.game_id]) == []  # gone from Redis, its refusal with it
        assert quarantine_cli(own_url, settings, "list") == (0, [])
        inst.run(archiver.archive_once())
        assert _held() == 0
    finally:
        inst.run(repo.close())
    ids = [g.game_id for g in games]
    rows = archived(own_url, ids)
    assert sorted(rows) == sorted(ids)  # every game, once (the primary key)
    for g in games:
        assert replayed_digest(registry.get("toybids"), rows[g.game_id]) == rows[g.game_id].digest
    fresh = make_client(make_instance(archive_url=own_url, archive_interval_s=0))  # nothing cached: from SQL
    assert _views(fresh, bad) == before


def test_a_refused_game_is_retried_after_a_doubling_wait_and_archived_once_the_cause_is_gone(
    make_instance, make_client, rdb, prefix, own_url
):
    inst = make_instance(archive_url=own_url, archive_interval_s=0)
    client = make_client(inst)
    (game,) = finished_games(client, 1, seed=32)
    refuse(own_url, game.game_id)
    archiver, repo = _archiver(inst, own_url, retry_s=0.3)
    inserts = InsertCounter(repo, game.game_id)
    try:
        assert inst.run(archiver.archive_once()) == 0
        first = inst.run(archiver.quarantined())[0]
        assert (first["attempts"], inserts.count) == (1, 1)
        assert inst.run(archiver.archive_once()) == 0  # before its retry time: left aside
        assert inserts.count == 1
        time.sleep(max(0.0, (first["retry_at_ms"] - time.time() * 1000) / 1000) + 0.05)
        assert inst.run(archiver.archive_once()) == 0  # retried once, refused again: the wait doubles
        second = inst.run(archiver.quarantined())[0]
        assert (second["attempts"], inserts.count) == (2, 2)
        assert second["retry_at_ms"] - second["last_ms"] == 600
        stop_refusing(own_url)  # e.g. the migration that fixes it is deployed
        assert inst.run(archiver.archive_once()) == 0  # still waiting
        time.sleep(max(0.0, (second["retry_at_ms"] - time.time() * 1000) / 1000) + 0.05)
        assert inst.run(archiver.archive_once()) == 1  # archived by a pass, as any game
        assert inserts.count == 3
    finally:
        inst.run(repo.close())
    assert leftover_keys(rdb, prefix, [game.game_id]) == []
    assert inst.run(archiver.quarantined()) == []


def test_a_correspondence_game_overflowing_a_32_bit_column_is_set_aside_until_the_column_is_widened(
    make_instance, make_client, rdb, prefix, settings, tmp_path
):
    """The case migration 0003 fixed, replayed on a database of its own: turn_ms back to INTEGER, a 30-day
    correspondence game (2.592e9 ms per decision) in a batch with others. asyncpg refuses the value before
    PostgreSQL sees it; the others are archived; widening the column (what 0003 did) and a retry archive it."""
    require_postgres()
    with own_archive("postgresql", tmp_path, "int32") as url:
        sql(url, "ALTER TABLE archived_games ALTER COLUMN turn_ms TYPE INTEGER")
        inst = make_instance(archive_url=url, archive_interval_s=0)
        client = make_client(inst)
        others = finished_games(client, 3, seed=33)
        slow = client.create_game("toybids", 2, seed=34, time_control=CORRESPONDENCE)
        play_random([client], slow, 2, random.Random(34))
        before = _views(client, slow)
        refused_before = _refusals("data")
        archiver, repo = _archiver(inst, url, batch=10)
        try:
            assert inst.run(archiver.archive_once()) == 3
            (held,) = inst.run(archiver.quarantined())
        finally:
            inst.run(repo.close())
        assert leftover_keys(rdb, prefix, [g.game_id for g in others]) == []
        assert held["game_id"] == slow.game_id and held["kind"] == "data"
        # PostgreSQL's "integer out of range" (22003), or asyncpg's "out of int32 range" (22000) before it
        assert held["sqlstate"] in ("22003", "22000") and "out of" in held["message"], held
        assert "2592000000" not in held["message"]
        assert _refusals("data") == refused_before + 1
        assert _views(client, slow) == before
        sql(url, "ALTER TABLE archived_games ALTER COLUMN turn_ms TYPE BIGINT")
        code, lines = quarantine_cli(url, settings, "retry", "--all")
        assert (code, lines) == (0, [{"game_id": slow.game_id, "outcome": "archived"}])
        assert leftover_keys(rdb, prefix, [slow.game_id]) == []
        assert archived(url, [slow.game_id])[slow.game_id].clock_ms == 30 * 86_400_000
        fresh = make_client(make_instance(archive_url=url, archive_interval_s=0))
        assert _views(fresh, slow) == before
        assert fresh.get_game(slow.game_id).time_control == CORRESPONDENCE


@pytest.mark.parametrize("backend", ["postgresql", "sqlite"])
def test_an_unreachable_database_sets_nothing_aside_and_the_batch_is_retried_later(
    make_instance, make_client, rdb, prefix, backend, tmp_path
):
    if backend == "postgresql":
        require_postgres()
        unreachable = "postgresql+asyncpg://postgres@127.0.0.1:1/skyboard_nowhere"  # nothing listens on port 1
    else:
        unreachable = f"sqlite+aiosqlite:///{tmp_path}"  # a folder: the file cannot be opened
    with own_archive(backend, tmp_path, "reachable") as url:
        inst = make_instance(archive_url=url, archive_interval_s=0)
        client = make_client(inst)
        games = finished_games(client, 3, seed=35)
        ids = [g.game_id for g in games]
        counted = {k: _refusals(k) for k in ("data", "constraint", "unreadable", "mismatch")}
        down, down_repo = _archiver(inst, unreachable, lease_s=0.2)
        try:
            for _ in range(3):
                with pytest.raises(Exception) as failed:
                    inst.run(down.archive_once())
                assert not isinstance(failed.value, AssertionError)
                time.sleep(0.25)  # its leases expire: the next pass takes the whole batch again
            assert inst.run(down.quarantined()) == []
        finally:
            inst.run(down_repo.close())
        assert rdb.zcard(f"{prefix}games:quarantined") == 0
        assert {k: _refusals(k) for k in counted} == counted
        assert all(leftover_keys(rdb, prefix, [gid]) for gid in ids)  # every game still in Redis
        up, repo = _archiver(inst, url, lease_s=0.2)  # the database is back
        try:
            assert inst.run(up.archive_once()) == 3
        finally:
            inst.run(repo.close())
        assert leftover_keys(rdb, prefix, ids) == []
        assert sorted(archived(url, ids)) == sorted(ids)


def test_an_unreadable_record_and_a_digest_the_archive_contradicts_are_set_aside_too(
    make_instance, make_client, rdb, prefix, archive_url
):
    """Not the database's refusals, but games that could stall a batch the same way: a Redis record that makes no
    archive record (here a corrupted seed) and an id the archive already holds with another digest."""
    inst = make_instance(archive_url=archive_url, archive_interval_s=0)
    client = make_client(inst)
    games = finished_games(client, 4, seed=36)
    broken, contradicted = games[0], games[1]
    rdb.hset(Keys(prefix).meta(broken.game_id), "seed", "not a number")
    archiver, repo = _archiver(inst, archive_url, batch=10, retry_s=0)  # ARCHIVE_RETRY_S=0: only an operator's
    try:
        (record,) = inst.run(archiver._read([contradicted.game_id]))
        record.digest = "f" * 64
        inst.run(repo.put_many([record]))  # the archive holds this id with another digest
        assert inst.run(archiver.archive_once()) == 2
        held = {e["game_id"]: e for e in inst.run(archiver.quarantined())}
        assert sorted(held) == sorted([broken.game_id, contradicted.game_id])
        assert (held[broken.game_id]["kind"], held[broken.game_id]["error"]) == ("unreadable", "ValueError")
        assert held[contradicted.game_id]["kind"] == "mismatch"
        assert inst.run(archiver.archive_once()) == 0  # left aside, not tried again
        assert [(e["attempts"], e["retry_at_ms"]) for e in inst.run(archiver.quarantined())] == [(1, None)] * 2
        rdb.delete(Keys(prefix).meta(broken.game_id))  # a game gone from Redis some other way
        assert inst.run(archiver.retry([broken.game_id])) == {broken.game_id: "gone"}
        assert [e["game_id"] for e in inst.run(archiver.quarantined())] == [contradicted.game_id]
        assert not rdb.exists(Keys(prefix).refused(broken.game_id))
    finally:
        inst.run(repo.close())
    assert leftover_keys(rdb, prefix, [g.game_id for g in games[2:]]) == []
    assert client.get_game(contradicted.game_id).digest != "f" * 64  # Redis kept its own copy
