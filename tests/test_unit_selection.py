"""`make test-unit`'s selection names files that exist, and the tests `make test` leaves to `make test-integration` are
collected there: a moved or renamed suite must not drop out of either unseen."""

from __future__ import annotations

from tests.unit_selection import TESTS, UNIT_TESTS


def test_every_path_of_the_unit_selection_exists():
    missing = [unit for unit in UNIT_TESTS if not (TESTS / unit).exists()]
    assert not missing, f"tests/unit_selection.py names paths that do not exist: {missing}"



def test_every_test_left_to_test_integration_names_a_test_that_exists():
    """A stale name would only keep its test in `make test` (nothing is lost), but the budget would be spent again."""
    import ast

    from tests.integration_selection import INTEGRATION_TESTS

    gone = []
    for node in sorted(INTEGRATION_TESTS):
        path, name = node.split("::")
        file = TESTS.parent / path
        defined = {f.name for f in ast.walk(ast.parse(file.read_text())) if isinstance(f, ast.FunctionDef)} \
            if file.is_file() else set()
        if name.split("[")[0] not in defined:
            gone.append(node)
    assert not gone, f"tests/integration_selection.py names tests that do not exist: {gone}"
