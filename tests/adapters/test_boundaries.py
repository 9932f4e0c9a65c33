"""The adapters live beside the engines and import nothing from services/ or ai/; the engines import none of
the research libraries, and importing `engine` (whose discovery imports every subpackage) loads none of them."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
RESEARCH = {"pyspiel", "open_spiel", "pettingzoo", "gymnasium", "numpy"}


def _imports(path: Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module.split(".")[0])
    return names


def test_the_adapters_import_nothing_from_services_or_ai():
    files = sorted((ROOT / "engine" / "adapters").glob("*.py"))
    assert len(files) >= 4
    for path in files:
        assert not _imports(path) & {"services", "ai", "bench", "tests"}, path


def test_the_engines_import_no_research_library():
    for path in sorted((ROOT / "engine").rglob("*.py")):
        if "adapters" in path.relative_to(ROOT).parts:
            continue
        assert not _imports(path) & RESEARCH, path


def test_importing_the_engines_loads_no_research_library():
    probe = "import sys, engine; engine.games(); print(sorted(m for m in sys.modules if m.split('.')[0] in %r))"
    out = subprocess.run([sys.executable, "-c", probe % (RESEARCH,)], cwd=ROOT, capture_output=True, text=True,
                         check=True, timeout=60).stdout.strip()
    assert out == "[]"
