"""docs/research.md: its example programs run as a reader would paste them, and its action tables list every
integer of every game."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from docs.hooks.skyboard import on_page_markdown
from engine.adapters.actions import table
from tests.adapters.conftest import GAMES

PAGE = Path(__file__).resolve().parents[2] / "docs" / "research.md"


@pytest.mark.parametrize("block", range(2))
def test_the_example_programs_run(block, capsys):
    programs = re.findall(r"```python\n(.*?)```", PAGE.read_text(), re.S)
    assert len(programs) == 2
    exec(compile(programs[block], f"research.md block {block}", "exec"), {})
    printed = capsys.readouterr().out
    assert re.search(r"-?\d", printed), "the example printed no result"


@pytest.mark.parametrize("name", GAMES)
def test_the_token_tables_list_every_integer(name):
    rendered = on_page_markdown(PAGE.read_text())
    section = rendered.split(f"All {table(name).size} integers of {name}")[1].split("###")[0]
    for i, label in enumerate(table(name).tokens):
        assert f"`{label}`" in section, f"{name} token {i} ({label}) is missing"
