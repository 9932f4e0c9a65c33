"""services.common.boundedjson: plain JSON parses exactly as the stdlib parses it; every hostile class (too deep, too
large, integers beyond 64 bits, lone surrogates, NaN/Infinity, not UTF-8) is a JsonRefused naming its rule,
and no input raises anything else (RecursionError least of all)."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from services.common.boundedjson import INT_MAX, INT_MIN, MAX_BYTES, MAX_DEPTH, JsonRefused, loads
from tests import hostile_json

plain_values = st.recursive(
    st.none() | st.booleans() | st.integers(INT_MIN, INT_MAX) | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=12),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=6), children, max_size=4),
    max_leaves=30,
)


def refused(text: str | bytes, **limits: int) -> JsonRefused:
    with pytest.raises(JsonRefused) as info:
        loads(text, **limits)
    return info.value


def depth_of(value) -> int:
    if isinstance(value, dict):
        return 1 + max(map(depth_of, value.values()), default=0)
    if isinstance(value, list):
        return 1 + max(map(depth_of, value), default=0)
    return 0


@given(plain_values, st.booleans())
def test_plain_json_parses_as_the_stdlib_parses_it(value, as_bytes: bool) -> None:
    text = json.dumps(value, ensure_ascii=False)
    if depth_of(value) > MAX_DEPTH:
        return
    assert loads(text.encode() if as_bytes else text) == json.loads(text)


@given(hostile_json.deep(max_depth=20_000))
@settings(max_examples=60)
def test_nesting_past_the_limit_is_refused_never_a_recursion_error(text: str) -> None:
    error = refused(text.encode(), max_bytes=10**6)
    assert error.rule == "json_too_deep" and str(MAX_DEPTH) in error.message


@given(st.integers(1, MAX_DEPTH), st.lists(st.booleans(), min_size=1, max_size=4))
def test_nesting_up_to_the_limit_parses(depth: int, pattern: list[bool]) -> None:
    shapes = (pattern * depth)[:depth]
    opens = "".join('{"k": ' if obj else "[" for obj in shapes)
    closes = "".join("}" if obj else "]" for obj in reversed(shapes))
    assert depth_of(loads(opens + "0" + closes)) == depth


def test_brackets_and_digits_inside_strings_do_not_count() -> None:
    text = json.dumps({"a": "[" * 5000 + "{" * 5000, "b": "9" * 400, "c": '\\"[[[' * 50})
    assert loads(text) == json.loads(text)


@given(st.integers(-(2**200), 2**200))
def test_integers_parse_within_64_bits_and_are_refused_beyond(n: int) -> None:
    text = json.dumps({"seed": n})
    if INT_MIN <= n <= INT_MAX:
        assert loads(text) == {"seed": n} and type(loads(text)["seed"]) is int
    else:
        assert refused(text).rule == "json_integer_range"


@given(hostile_json.huge_integers())
def test_huge_integer_literals_are_refused(literal: str) -> None:
    assert refused(f'{{"n": [{literal}]}}').rule == "json_integer_range"


def test_long_fractions_and_exponents_are_floats_not_huge_integers() -> None:
    assert loads("0.12345678901234567890123456") == pytest.approx(0.123456789012345678)
    assert loads("[1e10, 12345678901234567890123.5]") == [1e10, 12345678901234567890123.5]


@given(hostile_json.unicode_digits())
def test_unicode_digits_are_only_ever_strings(text: str) -> None:
    assert loads(text) == json.loads(text)  # a string value, fine as such
    assert refused(text[1:-1]).rule == "json_invalid"  # never a number


@given(hostile_json.lone_surrogates())
def test_lone_surrogates_are_refused(text: str) -> None:
    assert refused(text).rule == "lone_surrogate"


def test_paired_surrogates_and_raw_lone_surrogates() -> None:
    assert loads('"\\ud83d\\ude00"') == "\U0001f600"
    assert refused('"\ud800"').rule == "lone_surrogate"  # a str can hold one raw
    assert refused(b'"\xed\xa0\x80"').rule == "json_not_utf8"  # a surrogate encoded as UTF-8 bytes


@given(hostile_json.non_finite())
def test_nan_and_infinity_are_refused(text: str) -> None:
    assert refused(text).rule == "json_not_finite"


def test_nan_inside_a_string_is_just_a_string() -> None:
    assert loads('["NaN", "Infinity"]') == ["NaN", "Infinity"]


def test_size_limit_and_invalid_utf8() -> None:
    assert refused(b" " * (MAX_BYTES + 1)).rule == "json_too_large"
    assert loads(b"[1]", max_bytes=3) == [1]
    assert refused(b"[1] ", max_bytes=3).rule == "json_too_large"
    assert refused(b'{"a": "\xff"}').rule == "json_not_utf8"


@pytest.mark.parametrize("name", sorted(hostile_json.EXAMPLES))
def test_every_fixed_hostile_example_is_refused(name: str) -> None:
    refused(hostile_json.EXAMPLES[name])


@given(st.one_of(st.binary(max_size=200), st.text(max_size=200), hostile_json.hostile_values()))
@settings(max_examples=300)
def test_any_input_parses_as_the_stdlib_would_or_is_refused(data) -> None:
    try:
        value = loads(data)
    except JsonRefused:
        return
    assert value == json.loads(data)
