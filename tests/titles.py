"""Test parameters by title: Aeroplanes, the longest game to play or render, runs its whole-game cases in
`make test-slow`, while `make test` keeps the same path covered by the other titles (make test's ten-minute budget)."""

from __future__ import annotations

from collections.abc import Iterable

import pytest

LONGEST = "aeroplanes"


def longest_title_slow(names: Iterable[str]) -> list:
    """Each game name as a pytest param, the longest title's marked `slow`."""
    return [pytest.param(name, marks=[pytest.mark.slow] if name == LONGEST else []) for name in names]
