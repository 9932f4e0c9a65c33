"""`make test-unit`, the edit-run loop: the engines, the bots and the services' pure logic.

None of these tests needs Redis, PostgreSQL or a browser: the target points every service address at a closed port
and sets CI=true, so a test here that starts needing one fails rather than skips. tests/conftest.py marks them
`unit`; `python -m tests.unit_selection` prints their paths, so pytest collects nothing else.
"""

from __future__ import annotations

from pathlib import Path

#: Paths under tests/; a folder takes every file in it.
UNIT_TESTS = (
    "aeroplanes", "blueskies", "opensky", "conformance", "adapters",
    "ai/test_bots.py", "ai/test_native.py", "ai/test_outcome.py", "ai/test_playout_search.py", "ai/test_tree_reuse.py",
    "test_core.py", "test_canonical_json.py", "test_boundedjson.py", "test_standings.py", "test_readme.py",
    "test_unit_selection.py", "test_screenshots.py", "test_settings_fields.py", "test_import_graph.py",
    "services/test_commit_kinds.py", "services/test_gctune.py", "services/test_game_record_codecs.py",
    "services/test_pb_records.py",
    "webclient/test_catalogue.py",
    "deploy/test_secrets.py", "gateway/test_game_record.py", "cluster/test_slot_buckets.py",
    "accounts/test_revocation.py", "docs/test_rules_reference.py",
    "tournaments/test_scoring.py", "tournaments/test_swiss.py", "tournaments/test_arena.py",
    "test_dependency_lock.py", "test_issue_references.py",
)
TESTS = Path(__file__).resolve().parent


if __name__ == "__main__":
    print(" ".join(str((TESTS / unit).relative_to(TESTS.parent)) for unit in UNIT_TESTS))
