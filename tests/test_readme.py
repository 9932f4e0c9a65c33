"""The README's Layout table matches the tree, and the engine example of the docs runs verbatim."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
ENGINE_DOC = ROOT / "docs" / "platform" / "engines.md"


def test_the_engine_api_page_first_python_block_runs():
    text = ENGINE_DOC.read_text(encoding="utf-8")
    match = re.search(r"```python\n(.*?)```", text, re.S)
    assert match, f"{ENGINE_DOC.relative_to(ROOT)} has no ```python block"
    exec(compile(match.group(1), str(ENGINE_DOC), "exec"), {"__name__": "engine_doc_example"})


def layout_entries(readme: str) -> set[str]:
    """The folders the README's Layout table lists: the first cell of each row, as `path/`."""
    section = readme.split("\n## Layout\n", 1)[1].split("\n## ", 1)[0]
    return {m.group(1) for m in re.finditer(r"^\| `([^`]+)/` \|", section, re.M)}


def tracked_folders() -> set[str]:
    """Top-level folders and the packages under services/ with a file git tracks or would track (not ignored)."""
    files = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=ROOT,
                           capture_output=True, text=True, check=True).stdout
    out = set()
    for path in filter(None, files.split("\0")):
        parts = path.split("/")
        if not (ROOT / path).exists():  # deleted in the work tree, not yet committed
            continue
        if len(parts) > 1:
            out.add(parts[0])
        if len(parts) > 2 and parts[0] == "services":
            out.add(f"services/{parts[1]}")
    return out


def drift(readme: str, present: set[str]) -> tuple[list[str], list[str]]:
    """(folders missing from the table, folders the table lists that do not exist)."""
    listed = layout_entries(readme)
    return sorted(present - listed), sorted(listed - present)


def test_the_layout_table_lists_every_folder_and_only_folders_that_exist():
    missing, absent = drift(README.read_text(encoding="utf-8"), tracked_folders())
    assert not missing, f"folders missing from the README's Layout table: {missing}"
    assert not absent, f"the README's Layout table lists folders that do not exist: {absent}"


def test_the_layout_check_sees_a_missing_and_an_absent_folder():
    table = "# x\n\n## Layout\n\n| folder | what |\n|---|---|\n| `engine/` | a |\n| `services/gone/` | b |\n\n## Next\n"
    assert drift(table, {"engine", "docs", "services/gateway"}) == (["docs", "services/gateway"], ["services/gone"])
