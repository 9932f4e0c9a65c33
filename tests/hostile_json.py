"""Hostile input classes for the fuzzers, as Hypothesis strategies of JSON text fragments (one value each):

- deep nesting: 33 to 5,000 levels of arrays/objects (Python's json recursed until RecursionError);
- Unicode digits: strings whose characters `str.isdigit()` calls digits though they are not ASCII ("²", "٣");
- huge integers: beyond 64 bits, up to 5,000 digits (json refuses more than 4,300 with a ValueError);
- lone surrogates: an unpaired UTF-16 surrogate escape ("\\ud800"), which no UTF-8 encoder accepts;
- non-finite numbers: NaN, Infinity, and literals that overflow a double.

The REST and gRPC fuzzers (tests/proof, tests/gateway/test_schemathesis.py) put these fragments where a
client can put JSON, and the bounded parser's own tests (tests/test_boundedjson.py) check each class.
"""

from __future__ import annotations

import json

from hypothesis import strategies as st

MAX_DEPTH = 32  # services.common.boundedjson.MAX_DEPTH, restated: the tests pin the documented limit

#: Characters `str.isdigit()` accepts that are not ASCII digits: `int()` fails on some ("²") and silently
#: reads others ("٣" is 3), so neither may pass for a seat number or version.
UNICODE_DIGITS = ["²", "³", "¹", "٣", "\uff11", "\uff13", "߁", "\u0966", "\U0001d7d8", "①"]


def _nest(depth: int, shapes: list[bool]) -> str:
    opens = "".join('{"a":' if obj else "[" for obj in shapes[:depth])
    closes = "".join("}" if obj else "]" for obj in reversed(shapes[:depth]))
    return opens + "1" + closes


@st.composite
def deep(draw, min_depth: int = MAX_DEPTH + 1, max_depth: int = 5000) -> str:
    """A value nested `min_depth`..`max_depth` levels deep, arrays and objects mixed."""
    depth = draw(st.integers(min_depth, max_depth))
    pattern = draw(st.lists(st.booleans(), min_size=1, max_size=8))
    return _nest(depth, (pattern * (depth // len(pattern) + 1))[:depth])


def unicode_digits() -> st.SearchStrategy[str]:
    """A JSON string of 1-3 non-ASCII characters that `str.isdigit()` accepts."""
    chars = st.characters(categories=["Nd", "No"]).filter(lambda c: not c.isascii() and c.isdigit())
    return st.one_of(st.sampled_from(UNICODE_DIGITS), st.text(chars, min_size=1, max_size=3)).map(
        lambda s: json.dumps(s, ensure_ascii=False)
    )


def huge_integers() -> st.SearchStrategy[str]:
    """An integer literal outside -2**63..2**64-1."""
    return st.one_of(
        st.integers(min_value=2**64, max_value=2**200).map(str),
        st.integers(min_value=-(2**200), max_value=-(2**63) - 1).map(str),
        st.integers(21, 5000).map(lambda n: "9" * n),
    )


def lone_surrogates() -> st.SearchStrategy[str]:
    """A JSON string holding an unpaired surrogate escape, alone or between other characters."""
    escape = st.integers(0xD800, 0xDFFF).map(lambda cp: f"\\u{cp:04x}")
    around = st.text(st.characters(min_codepoint=0x20, max_codepoint=0x7E, exclude_characters='"\\'), max_size=3)
    swapped = st.just("\\udc00\\ud800")  # a low surrogate before a high one pairs with nothing
    return st.tuples(around, st.one_of(escape, swapped), around).map(lambda t: f'"{t[0]}{t[1]}{t[2]}"')


def non_finite() -> st.SearchStrategy[str]:
    return st.sampled_from(["NaN", "Infinity", "-Infinity", "1e999", "-1e400", "[NaN]"])


def hostile_values() -> st.SearchStrategy[str]:
    """Any JSON text fragment of the classes above that a bounded parser must refuse."""
    return st.one_of(deep(), huge_integers(), lone_surrogates(), non_finite())


#: One fixed example per class, for tests that need a few cases rather than a strategy.
EXAMPLES = {
    "deep_array": "[" * 2000 + "]" * 2000,
    "deep_object": '{"a":' * 1000 + "1" + "}" * 1000,
    "just_too_deep": _nest(MAX_DEPTH + 1, [True, False] * MAX_DEPTH),
    "huge_integer": "1" + "0" * 30,
    "huge_integer_4301_digits": "9" * 4301,
    "just_over_64_bits": str(2**64),
    "lone_surrogate": '"\\ud800"',
    "lone_low_surrogate": '"x\\udfffy"',
    "nan": "NaN",
    "infinity": "-Infinity",
}
