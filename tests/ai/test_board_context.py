"""The board-context screen (`research.train.board_context`, a screen of the learned policy's inputs): positions rebuilt
by replay, columns from views."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import numpy as np
import pytest

import engine
from research.train.board_context import (
    AIRPORT_COLUMNS,
    TABLE_COLUMNS,
    airport_columns,
    columns_of,
    context_rows,
    load,
    screen,
)

LEDGER = (Path(__file__).resolve().parents[2]
          / "research/2026-12-04-bs-expert-iteration/data/bs2-exit-r1a/ledger-89g.jsonl.gz")


def test_replayed_positions_keep_the_ledgers_afterstate_rows_and_add_the_views_columns() -> None:
    xs, ys, chosen, games, after = load([LEDGER], games=2)
    with gzip.open(LEDGER, "rt") as handle:
        first = [r for r in map(json.loads, handle) if r["kind"] == "position" and r["game_index"] == games[0]]
    first = [r for r in first if sum(r["visits"]) > 0]
    assert after == len(first[0]["features"][0])
    codes = len(engine.get("blueskies").new(2, 0).view(0)["airports"])
    assert xs[0].shape == (len(first[0]["legal"]), after + len(AIRPORT_COLUMNS) + len(TABLE_COLUMNS) + codes)
    for x, record in zip(xs, first, strict=False):
        np.testing.assert_allclose(x[:, :after], np.asarray(record["features"], dtype=np.float32))
    assert chosen[: len(first)] == [r["chosen"] for r in first]
    assert all(abs(y.sum() - sum(r["visits"])) < 1e-9 for y, r in zip(ys, first, strict=False))


def test_columns_come_from_the_seats_view_alone() -> None:
    """Two seats see the same board but their own hands: the airport columns differ only where the view does."""
    state = engine.get("blueskies").new(2, 7)
    view0, view1 = state.view(0), state.view(1)
    mine, theirs = airport_columns(view0, 0), airport_columns(view1, 1)
    hand_column = AIRPORT_COLUMNS.index("in_my_hand")
    for code, row in mine.items():
        assert row[hand_column] == view0["hand"].count(code)
        assert theirs[code][hand_column] == view1["hand"].count(code)
    legal = [a.to_json() for a in state.legal_actions(state.to_act()[0])]
    seat = state.to_act()[0]
    rows = context_rows(state.view(seat), seat, legal, [[0.0]] * len(legal))
    assert rows == context_rows(json.loads(json.dumps(state.view(seat))), seat, legal, [[0.0]] * len(legal))


def test_the_screen_reports_held_out_figures_for_each_column_set() -> None:
    pytest.importorskip("torch")  # the training stack, as research.train.fit's tests: not in the worker's install
    xs, ys, chosen, games, after = load([LEDGER], games=6)
    widths = {name: xs[0][:, columns_of(name, after)].shape[1] for name in ("after", "board", "all")}
    assert widths["after"] < widths["board"] < widths["all"] == xs[0].shape[1]
    result = screen(xs, ys, chosen, games, columns_of("board", after), hidden=4, epochs=3)
    assert result["features"] == widths["board"]
    assert result["test_positions"] > 0 and result["train_positions"] > 0
    assert 0.0 <= result["test_top1_agreement"] <= 1.0 and result["test_cross_entropy"] > 0
