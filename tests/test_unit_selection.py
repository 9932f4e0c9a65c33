"""`make test-unit`'s selection names files that exist: a moved or renamed suite must not drop out of it unseen."""

from __future__ import annotations

from tests.unit_selection import TESTS, UNIT_TESTS


def test_every_path_of_the_unit_selection_exists():
    missing = [unit for unit in UNIT_TESTS if not (TESTS / unit).exists()]
    assert not missing, f"tests/unit_selection.py names paths that do not exist: {missing}"
