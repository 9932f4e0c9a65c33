"""Numbers a client writes as text (bot seat keys, Last-Event-ID), read from ASCII digits only.

Why: `str.isdigit()` is true for "²", whose `int()` then fails (a 500), and for "\u0661" (ARABIC-INDIC DIGIT
ONE), which `int()` silently reads as 1; neither may pass for a seat or a version.
"""

from __future__ import annotations


def ascii_int(text: str, max_digits: int = 18) -> int | None:
    """The value of `text` if it is 1-`max_digits` ASCII digits (nothing else: no sign, space or "_"), else None."""
    if 0 < len(text) <= max_digits and text.isascii() and text.isdigit():
        return int(text)
    return None
