"""`Commit`'s named constructors (services/gamestate/records.py): each records its kind, and none lets a site
forget the forfeited seats (a commit without them would crown a resigner)."""

from __future__ import annotations

import pytest

from services.gamestate.records import Commit

STATE = object()  # the constructors only carry the state


def _each() -> dict[str, Commit]:
    common = {"reserves": {}, "forfeited": [1]}
    return {
        "move": Commit.move(3, STATE, 0, {"a": 1}, [], 0, {}, idem_key=None, idem_value=None, token_check=(0, "h"),
                            bot_wait_ms=None, extra_meta={}, at_ms=5, **common),
        "auto": Commit.auto(3, STATE, 0, {"a": 1}, [], 0, {}, bot_wait_ms=7, **common),
        "timeout": Commit.timeout(3, STATE, 0, {"a": 1}, [], 0, {}, bot_wait_ms=None, extra_meta={"t": "1"}, at_ms=5,
                                  **common),
        "resign": Commit.resign(3, STATE, 0, [], 0, {}, extra_meta={"r": "1"}, bot_wait_ms=None, **common),
        "abort": Commit.abort(3, STATE, None, [], 0, **common),
        "abandon": Commit.abandon(3, STATE, [], 0, {}, extra_meta={}, bot_wait_ms=None, at_ms=5, **common),
        "take_back": Commit.take_back(3, STATE, 0, 1, [], 0, {}, idem_key=None, idem_value=None, token_check=None,
                                      bot_wait_ms=None, at_ms=5, undo=None, **common),
    }


def test_each_constructor_records_its_kind_and_what_that_kind_is() -> None:
    made = _each()
    assert {kind: c.kind for kind, c in made.items()} == {kind: kind for kind in made}
    assert all(c.expected_version == 3 and c.state is STATE and list(c.forfeited) == [1] for c in made.values())
    assert [k for k, c in made.items() if c.action is None] == ["resign", "abort", "abandon", "take_back"]
    assert [k for k, c in made.items() if c.state_of is not None] == ["take_back"]  # it restores version 1
    assert [k for k, c in made.items() if c.seat is None] == ["abort", "abandon"]
    assert [k for k, c in made.items() if c.status == "aborted"] == ["abort"]
    assert made["move"].token_check == (0, "h") and made["auto"].bot_wait_ms == 7
    assert made["abort"].at_ms is None and made["timeout"].at_ms == 5


@pytest.mark.parametrize("make", [
    lambda: Commit.abort(3, STATE, None, [], 0, reserves={}),
    lambda: Commit.auto(3, STATE, 0, {}, [], 0, {}, bot_wait_ms=None, reserves={}),
    lambda: Commit(3, STATE, 0, "move", None, [], 0),
])
def test_forfeited_stays_required(make) -> None:
    with pytest.raises(TypeError):
        make()
