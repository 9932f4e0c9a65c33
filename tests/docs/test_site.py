"""The documentation site builds with `mkdocs build --strict` (a broken link or anchor fails it), and its
generated game pages list every action type, event type and view field the engines have, and the operations page
every public REST operation."""

from __future__ import annotations

import html
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

import engine
from services.gateway.openapi.vocabulary import vocabulary
from tests.titles import longest_title_slow

ROOT = Path(__file__).resolve().parents[2]
MKDOCS = [sys.executable, "-m", "mkdocs"]


def text_of(page: Path) -> str:
    return html.unescape(re.sub(r"<[^>]+>", " ", page.read_text()))


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("site")
    run = subprocess.run([*MKDOCS, "build", "--strict", "-d", str(out)], cwd=ROOT, capture_output=True, text=True,
                         timeout=300, env={**os.environ, "NO_MKDOCS_2_WARNING": "1"})
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-4000:]
    return out


# Aeroplanes' page (the largest, ~30 s under load) in make test-slow; the other games' pages in make test (make test's
# ten-minute budget)
@pytest.mark.parametrize("name", longest_title_slow(engine.games()))
def test_each_game_page_lists_every_action_event_and_view_field(site: Path, name: str) -> None:
    page = text_of(site / "games" / name / "index.html")
    vocab = vocabulary(name)
    for section, names in (("action", vocab.actions), ("event", vocab.events), ("view field", vocab.view.fields)):
        missing = [n for n in names if not re.search(rf"(?<![\w-]){re.escape(n)}(?![\w-])", page)]
        assert not missing, f"{name}: {section}s missing from the page: {missing}"
    assert set(vocab.actions) == set(engine.get(name).codec.types)


def test_the_operations_page_lists_every_public_operation(site: Path) -> None:
    from skyboard_client._core import OPERATIONS

    page = text_of(site / "rest" / "index.html")
    for (method, path), sdk in OPERATIONS.items():
        assert re.search(rf"{method.upper()}\s+{re.escape(path)}\s", page), (method, path)
        assert sdk in page


def test_the_sdk_reference_documents_the_clients(site: Path) -> None:
    page = text_of(site / "sdk" / "index.html")
    for name in ("Client", "AsyncClient", "RetryPolicy", "StaleVersion", "RateLimited", "submit", "account_events"):
        assert name in page


def test_a_broken_link_fails_the_strict_build(tmp_path: Path) -> None:
    """The site's own validation settings, on a page with a link to nowhere: the build must fail."""
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text())
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "index.md").write_text("# Home\n\nSee [the rules](nowhere.md) and [a section](#no-such-anchor).\n")
    small = {"site_name": "bite", "docs_dir": str(docs), "strict": True, "validation": config["validation"],
             "markdown_extensions": [{"toc": {"permalink": True}}]}
    (tmp_path / "mkdocs.yml").write_text(yaml.safe_dump(small))
    run = subprocess.run([*MKDOCS, "build", "--strict", "-d", str(tmp_path / "out")], cwd=tmp_path,
                         capture_output=True, text=True, timeout=120)
    assert run.returncode != 0
    assert "nowhere.md" in run.stderr and "no-such-anchor" in run.stderr
