"""Which archive failures are one row's fault, and what is kept of them.

A batch of finished games is written in one transaction. When it fails, the archiver must know whether the
database refused one of its rows (a value a column cannot hold, a constraint, an encoding it rejects: the same
row would fail again however often it is retried, and so would every batch holding it) or could not do its
work at all (unreachable, restarting, out of connections, a missing table: retrying the whole batch later is
right, and no game is to blame). `refusal_of` answers a `Refusal` for the first kind and None for the second.

Row-level: an SQLSTATE of class 22 (data exception: out of range, invalid encoding, too long...) or 23 (integrity
constraint violation: CHECK, NOT NULL, foreign key...) from PostgreSQL, including asyncpg's client-side encoding
refusals (22000); SQLAlchemy's DataError and IntegrityError from a driver without SQLSTATEs (SQLite, where a
trigger's RAISE(ABORT) is an IntegrityError); a StatementError raised before the statement reached the database (a
parameter that could not be processed); and a driver refusing to encode a value (SQLite's OverflowError for an
integer past 64 bits, UnicodeEncodeError for a lone surrogate). Anything else, OSError above all, is not.

The message kept is the database's own sentence, never SQLAlchemy's rendering of the statement and its
parameters (they hold the whole row); values a driver echoes back are cut out, long hexadecimal runs (token
hashes, digests) and seat tokens are masked, and it is bounded in length.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from sqlalchemy.exc import DataError, DBAPIError, IntegrityError, StatementError

#: longest message kept (characters)
MAX_MESSAGE = 300

_ARGUMENT = re.compile(r"(invalid input for query argument \$\d+): .*? \((.*)\)$", re.S)
_HEX = re.compile(r"[0-9a-fA-F]{32,}")
_TOKEN = re.compile(r"sb[tb]_[A-Za-z0-9_-]+")


@dataclass(frozen=True, slots=True)
class Refusal:
    """Why a game could not be archived. `kind`: data | constraint (the database refused its row), unreadable (its
    Redis record does not make an archive record), mismatch (the archive holds another digest for its id)."""

    kind: str
    error: str
    message: str
    sqlstate: str = ""


def clean_message(text: str) -> str:
    """`text` on one line, without the value a driver echoed, token hashes, digests or seat tokens, bounded."""
    text = " ".join(text.split())
    if m := _ARGUMENT.match(text):
        text = f"{m.group(1)} ({m.group(2)})"
    text = _TOKEN.sub("sbt_<redacted>", _HEX.sub("<hex>", text))
    return text if len(text) <= MAX_MESSAGE else text[: MAX_MESSAGE - 3] + "..."


def _sqlstate(exc: DBAPIError) -> str:
    orig = exc.orig
    code = getattr(orig, "sqlstate", None) or getattr(orig, "pgcode", None)
    return code if isinstance(code, str) and len(code) == 5 else ""


def refusal_of(exc: BaseException) -> Refusal | None:
    """The refusal of one row `exc` is, or None if it says the database could not work (retry the batch later)."""
    if isinstance(exc, DBAPIError):
        if exc.connection_invalidated:
            return None
        state = _sqlstate(exc)
        if state:
            kind = {"22": "data", "23": "constraint"}.get(state[:2])
        else:
            kind = "data" if isinstance(exc, DataError) else "constraint" if isinstance(exc, IntegrityError) else None
        if kind is None:
            return None
        driver_error = exc.orig.__cause__ or exc.orig  # asyncpg's own class under SQLAlchemy's adapter, if any
        return Refusal(kind, type(driver_error).__name__, clean_message(str(exc.orig)), state)
    if isinstance(exc, StatementError):  # raised while its parameters were processed: the database never saw it
        orig = exc.orig if exc.orig is not None else exc
        return Refusal("data", type(orig).__name__, clean_message(str(orig)))
    if isinstance(exc, (ValueError, ArithmeticError)) and not isinstance(exc, OSError):
        return Refusal("data", type(exc).__name__, clean_message(str(exc)))
    return None
