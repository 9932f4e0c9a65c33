"""Numbers a client writes as text (bot seat keys, Last-Event-ID), read from ASCII digits only.

Why: `str.isdigit()` is true for "²", whose `int()` then fails (a 500), and for "\u0661" (ARABIC-INDIC DIGIT
ONE), which `int()` silently reads as 1; neither may pass for a seat or a version.
"""

from __future__ import annotations

import re


def ascii_int(text: str, max_digits: int = 18) -> int | None:
    """The value of `text` if it is 1-`max_digits` ASCII digits (nothing else: no sign, space or "_"), else None."""
    if 0 < len(text) <= max_digits and text.isascii() and text.isdigit():
        return int(text)
    return None


#: Redis stream ids are two unsigned 64-bit numbers, "<ms>-<seq>".
_U64_MAX = 2**64 - 1


def stream_id(text: str) -> str | None:
    """`text` as a Redis stream id ("<ms>-<seq>", each ASCII digits within 0..2**64-1), else None.

    Why: Redis refuses a larger id with an error, which the account stream used to report as "storage is
    unavailable", so a client resuming from it reconnected forever."""
    ms, dash, seq = text.partition("-")
    a, b = ascii_int(ms, 20), ascii_int(seq, 20)
    if not dash or a is None or b is None or a > _U64_MAX or b > _U64_MAX:
        return None
    return f"{a}-{b}"


#: The id of an account stream's announcement of an ongoing game: "<entry id>:<game id>:<seat>", the entry being the
#: newest one when the stream started (services/gateway/routes/players.py).
_ANNOUNCEMENT = re.compile(r"([0-9]+-[0-9]+):([A-Za-z0-9_-]{1,64}):([0-9]{1,2})")


def announcement_id(entry_id: str, game_id: str, seat: int) -> str:
    """Each announcement's own id (a client may drop repeated ids: a hot-seat game announces several seats)."""
    return f"{entry_id}:{game_id}:{seat}"


def account_resume(text: str) -> tuple[str, bool] | None:
    """Where the account stream resumes after the id `text` (Last-Event-ID): (the entry to continue after, whether
    to announce the ongoing games again: after an announcement, whose siblings the client may not have had, under
    the same ids). None: not an id the stream sends."""
    found = _ANNOUNCEMENT.fullmatch(text)
    entry = stream_id(found.group(1) if found else text)
    return None if entry is None else (entry, found is not None)
