"""The README's engine example must run verbatim."""

from __future__ import annotations

import re
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"


def test_readme_first_python_block_runs():
    text = README.read_text(encoding="utf-8")
    match = re.search(r"```python\n(.*?)```", text, re.S)
    assert match, "README.md has no ```python block"
    exec(compile(match.group(1), "README.md", "exec"), {"__name__": "readme_example"})
