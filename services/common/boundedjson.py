"""Bounded JSON parsing for untrusted input (REST bodies, gRPC `action_json` / `options_json`).

Why: Python's `json` recurses once per nesting level, so a 2 KB body of brackets raises RecursionError
(not ValueError) and escapes every handler as a 5xx; it also accepts NaN/Infinity, lone UTF-16 surrogates
(which later fail to encode, in Redis or protobuf) and integers of any length. `loads` first bounds the
raw text in one cheap pass, then parses with orjson (UTF-8 only; refuses NaN, Infinity, lone surrogates
and numbers that overflow a double), so what comes back is always plain, encodable JSON:

- at most `MAX_BYTES` (64 KiB) of UTF-8;
- at most `MAX_DEPTH` (32) levels of arrays/objects; legitimate actions and options use 2-4;
- integers within 64 bits (-2**63 .. 2**64-1), the widest any field takes (seeds are < 2**63); orjson
  would turn wider ones into floats silently;
- finite numbers only, and strings without lone surrogates.

Any other input raises `JsonRefused` (a ValueError) with a message saying which rule it broke.
"""

from __future__ import annotations

import re
from typing import Any

import orjson

MAX_BYTES = 64 * 1024
MAX_DEPTH = 32
INT_MIN, INT_MAX = -(2**63), 2**64 - 1

#: Every ASCII digit mapped to "9", so one `find` of `_RUN` spots any run of 19 digits: the only way an
#: integer can leave the 64-bit range (2**63 has 19 digits). Several times faster than a regex search.
_DIGITS_AS_9 = bytes.maketrans(b"0123456789", b"9" * 10)
_RUN = b"9" * 19
#: The exact pass: strings (skipped whole, escapes included; an unterminated one runs to the end),
#: brackets, and numbers (whole, so that fraction and exponent digits are never read as an integer).
_TOKENS = re.compile(
    rb'(?P<s>"(?:[^"\\]++|\\.)*+"?)|(?P<o>[\[{])|(?P<c>[\]}])|(?P<n>-?\d++(?:\.\d*+)?(?:[eE][+-]?\d*+)?)',
    re.DOTALL,
)


class JsonRefused(ValueError):
    """The input is not JSON this service accepts; `rule` names the limit it broke."""

    def __init__(self, message: str, rule: str):
        super().__init__(message)
        self.message = message
        self.rule = rule


def loads(data: bytes | str, *, max_bytes: int = MAX_BYTES, max_depth: int = MAX_DEPTH) -> Any:
    """The JSON value of `data`, or JsonRefused (size, depth, integer range, then orjson's own checks)."""
    if isinstance(data, str):
        try:
            data = data.encode()
        except UnicodeEncodeError:
            raise JsonRefused("JSON text holds a lone UTF-16 surrogate", "lone_surrogate") from None
    check(data, max_bytes=max_bytes, max_depth=max_depth)
    try:
        return orjson.loads(data)
    except orjson.JSONDecodeError as exc:
        raise _explained(data, exc) from None


def check(raw: bytes, *, max_bytes: int = MAX_BYTES, max_depth: int = MAX_DEPTH) -> None:
    """Refuse `raw` if it is too large, nested too deep or holds an integer beyond 64 bits.

    Cheap for ordinary input: two byte counts, a translate and a find, all in C; the exact pass (which
    skips strings) runs only when there are more opening brackets than `max_depth` or a run of 19 digits."""
    if len(raw) > max_bytes:
        raise JsonRefused(f"JSON text is larger than {max_bytes} bytes", "json_too_large")
    if raw.count(b"[") + raw.count(b"{") > max_depth or raw.translate(_DIGITS_AS_9).find(_RUN) >= 0:
        _exact_pass(raw, max_depth)


def _exact_pass(raw: bytes, max_depth: int) -> None:
    depth = 0
    for m in _TOKENS.finditer(raw):
        kind = m.lastgroup
        if kind == "o":
            depth += 1
            if depth > max_depth:
                raise JsonRefused(f"JSON is nested deeper than {max_depth} levels", "json_too_deep")
        elif kind == "c":
            depth -= 1
        elif kind == "n" and m.end() - m.start() >= 19:
            _check_integer(m.group())


def _check_integer(literal: bytes) -> None:
    """Refuse an integer literal (no fraction, no exponent) outside 64 bits; floats pass here."""
    if literal.lstrip(b"-").isdigit():
        digits = len(literal) - literal.startswith(b"-")
        if digits > 20 or not INT_MIN <= int(literal) <= INT_MAX:
            shown = literal[:24].decode() + ("..." if len(literal) > 24 else "")
            raise JsonRefused(f"integer {shown} is outside the 64-bit range -2**63..2**64-1", "json_integer_range")


_NON_FINITE = re.compile(rb"-?\b(?:NaN|Infinity)\b")


def _explained(raw: bytes, exc: orjson.JSONDecodeError) -> JsonRefused:
    """A clear message for the classes orjson refuses with a generic one (only on the error path)."""
    reason = str(exc)
    if "surrogate" in reason and "UTF-8" not in reason:
        return JsonRefused(f"JSON text holds a lone UTF-16 surrogate ({reason})", "lone_surrogate")
    if "UTF-8" in reason:
        return JsonRefused(f"JSON text is not valid UTF-8 ({reason})", "json_not_utf8")
    if "infinity" in reason:
        return JsonRefused("JSON numbers must be finite (this one overflows a double)", "json_not_finite")
    if (b"NaN" in raw or b"Infinity" in raw) and _NON_FINITE.search(_unquoted(raw)):
        return JsonRefused("JSON numbers must be finite: NaN and Infinity are not JSON", "json_not_finite")
    return JsonRefused(f"not valid JSON: {reason}", "json_invalid")


def _unquoted(raw: bytes) -> bytes:
    """`raw` with every string's content removed, so that words inside strings are not read as tokens."""
    return _TOKENS.sub(lambda m: b'""' if m.lastgroup == "s" else m.group(), raw)
