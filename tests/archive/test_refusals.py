"""What the archiver takes for one row's refusal (set that game aside) and what for a database that cannot work
(retry the batch later), on the real errors of both backends; and what is kept of the message."""

from __future__ import annotations

import asyncio
import sqlite3

from sqlalchemy import text

from services.archive.db import make_engine
from services.archive.refusals import MAX_MESSAGE, clean_message, refusal_of
from tests.archive_db import own_pg_database

PG_CASES = [
    # (what, statement, parameters, kind or None)
    ("a value past INTEGER (asyncpg refuses it)", "INSERT INTO t (id, n) VALUES (:id, :n)", {"id": "a", "n": 2**31},
     "data"),
    ("a value past INTEGER (PostgreSQL refuses it)", "INSERT INTO t (id, n) VALUES (:id, CAST(:n AS bigint))",
     {"id": "b", "n": 2**31}, "data"),
    ("a NUL byte", "INSERT INTO t (id, n) VALUES (:id, 1)", {"id": "c\x00"}, "data"),
    ("a lone surrogate", "INSERT INTO t (id, n) VALUES (:id, 1)", {"id": "d\udc80"}, "data"),
    ("too long for VARCHAR(8)", "INSERT INTO t (id, n) VALUES (:id, 1)", {"id": "e" * 9}, "data"),
    ("a CHECK constraint", "INSERT INTO t (id, n) VALUES (:id, 1)", {"id": "refused"}, "constraint"),
    ("NOT NULL", "INSERT INTO t (id, n) VALUES (:id, NULL)", {"id": "f"}, "constraint"),
    ("a missing table (a migration not applied: every row would fail)", "INSERT INTO nowhere VALUES (:id)",
     {"id": "g"}, None),
]


def _errors(url: str, setup: list[str], cases) -> dict[str, BaseException | None]:
    async def go():
        engine = make_engine(url)
        out: dict[str, BaseException | None] = {}
        try:
            async with engine.begin() as conn:
                for s in setup:
                    await conn.execute(text(s))
            for what, statement, params, _kind in cases:
                try:
                    async with engine.begin() as conn:
                        await conn.execute(text(statement), params)
                    out[what] = None
                except Exception as exc:
                    out[what] = exc
        finally:
            await engine.dispose()
        return out

    return asyncio.run(go())


def test_postgresql_row_refusals_are_told_from_failures_of_the_database():
    with own_pg_database("refusals") as url:
        errors = _errors(url, ["CREATE TABLE t (id varchar(8) PRIMARY KEY, n integer NOT NULL)",
                               "ALTER TABLE t ADD CONSTRAINT no_refused CHECK (id <> 'refused')"], PG_CASES)
    for what, _statement, params, kind in PG_CASES:
        exc = errors[what]
        assert exc is not None, what
        refusal = refusal_of(exc)
        assert (refusal.kind if refusal else None) == kind, (what, exc)
        if refusal:
            assert refusal.sqlstate[:2] == {"data": "22", "constraint": "23"}[kind], (what, refusal)
            if "n" in params:
                assert str(params["n"]) not in refusal.message, refusal  # the value is not echoed
            assert "INSERT" not in refusal.message and "[SQL" not in refusal.message
    check = refusal_of(errors["a CHECK constraint"])
    assert (check.error, check.message) == ("CheckViolationError", 'new row for relation "t" violates check '
                                                                   'constraint "no_refused"')


def _unreachable(url: str) -> BaseException:
    """The error of a first statement on a database that cannot be reached."""

    async def go():
        engine = make_engine(url)
        try:
            async with engine.begin() as conn:
                await conn.execute(text("SELECT 1"))
        except Exception as exc:
            await asyncio.sleep(0.2)  # aiosqlite's connection thread ends after its failed open: not on a closed loop
            return exc
        finally:
            await engine.dispose()
        raise AssertionError(f"{url} answered")

    return asyncio.run(go())


def test_an_unreachable_postgresql_is_no_refusal():
    assert refusal_of(_unreachable("postgresql+asyncpg://postgres@127.0.0.1:1/nowhere")) is None


def test_sqlite_row_refusals_are_told_from_failures_of_the_database(tmp_path):
    cases = [
        ("a trigger's RAISE(ABORT)", "INSERT INTO t (id, n) VALUES (:id, 1)", {"id": "refused"}, "constraint"),
        ("NOT NULL", "INSERT INTO t (id, n) VALUES (:id, NULL)", {"id": "f"}, "constraint"),
        ("an integer past 64 bits", "INSERT INTO t (id, n) VALUES (:id, :n)", {"id": "a", "n": 2**64}, "data"),
        ("a lone surrogate", "INSERT INTO t (id, n) VALUES (:id, 1)", {"id": "d\udc80"}, "data"),
        ("a missing table", "INSERT INTO nowhere VALUES (:id)", {"id": "g"}, None),
    ]
    errors = _errors(f"sqlite+aiosqlite:///{tmp_path / 'r.db'}", [
        "CREATE TABLE t (id text PRIMARY KEY, n integer NOT NULL)",
        "CREATE TRIGGER refuse BEFORE INSERT ON t WHEN NEW.id = 'refused' BEGIN SELECT RAISE(ABORT, 'no'); END",
    ], cases)
    for what, _statement, _params, kind in cases:
        refusal = refusal_of(errors[what])
        assert (refusal.kind if refusal else None) == kind, (what, errors[what])
    assert refusal_of(_unreachable(f"sqlite+aiosqlite:///{tmp_path}")) is None  # a folder: no file to open
    assert refusal_of(sqlite3.OperationalError("database is locked")) is None
    assert refusal_of(ConnectionResetError()) is None and refusal_of(TimeoutError()) is None


def test_the_message_kept_holds_no_values_hashes_or_tokens_and_is_bounded():
    echoed = "invalid input for query argument $7: {'0': 'sbt_SECRETsecret'} (expected str, got dict)"
    assert clean_message(echoed) == "invalid input for query argument $7 (expected str, got dict)"
    assert clean_message("bad row " + "ab" * 32 + " from\nsbt_abcDEF-_123 here") == (
        "bad row <hex> from sbt_<redacted> here")
    assert len(clean_message("x" * 5000)) == MAX_MESSAGE
