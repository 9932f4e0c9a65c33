"""Take-back bookkeeping (services/gamestate/takeback.py, replay.py) over random games of every title, without
Redis: the log the service writes, moves and take-backs mixed, where a take-back restores exactly the state before
the decision (digest equal), goes back one decision at a time, never past another seat's decision or a reveal, and
the whole log replays to the live state."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import engine
from engine.playout import random_step
from services.gamestate import takeback
from services.gamestate.replay import TAKE_BACK, replay_entries
from tests.conformance.test_take_back import REVEALS

STEPS = 160


@pytest.mark.parametrize("name", sorted(REVEALS))
@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), extra=st.integers(0, 2), eagerness=st.floats(0.2, 0.8))
def test_take_back_restores_exactly_the_earlier_state_and_never_crosses_a_reveal_or_another_seat(
        name, seed, extra, eagerness):
    game = engine.get(name)
    players = min(game.min_players + extra, game.max_players)
    state = game.new(players, seed)
    rng = random.Random(seed)
    entries: list[dict] = []
    digests = {0: state.digest()}
    revealed: dict[int, bool] = {}  # a move's version -> whether it resolved chance or showed something hidden
    path = [0]  # the versions the live state descends from, decision by decision (take-backs removed)
    undo: takeback.Undo | None = None
    state_of: int | None = None
    for version in range(1, STEPS + 1):
        if state.is_over():
            break
        if undo is not None and rng.random() < eagerness:
            others = [s for s in range(players) if s != undo.seat]
            assert all(takeback.refusal(undo, s) for s in others)  # only the seat that decided
            assert takeback.refusal(undo, undo.seat) is None
            undone = path.pop()
            assert path[-1] == undo.to  # one decision back, no more
            assert entries[undone - 1]["kind"] == "move" and entries[undone - 1]["seat"] == undo.seat
            assert not revealed[undone]
            state = replay_entries(game.new(players, seed), game, entries[:undo.to])
            assert state.digest() == digests[undo.to]
            entries.append({"v": version, "seat": undo.seat, "kind": TAKE_BACK, "action": None, "restores": undo.to})
            digests[version] = digests[undo.to]
            state_of, undo = undo.to, takeback.entry_undo(entries, undo.to)
            continue
        before = state.clone()
        seat, action, events = random_step(state, rng)
        revealed[version] = (before.to_json()["rng"] != state.to_json()["rng"]
                             or bool({e.type for e in events} & REVEALS[name]))
        undo = takeback.after_move(game, before, seat, action, state, deadlines={}, reserves={},
                                   state_of=version - 1 if state_of is None else state_of)
        entry = {"v": version, "seat": seat, "kind": "move", "action": action.to_json()}
        if undo is not None:
            entry["undo"] = undo.to_json()
        entries.append(entry)
        digests[version] = state.digest()
        path.append(version)
        state_of = None
    assert replay_entries(game.new(players, seed), game, entries).digest() == state.digest()


def test_a_seeded_game_of_each_title_takes_back_to_the_turn_start_and_no_further():
    """Seed 3's games, 2-3 seats: every decision of the mover's turn goes back one at a time (digest by digest),
    and the last step back stops where another seat acted or something was revealed."""
    for name in sorted(REVEALS):
        game = engine.get(name)
        state = game.new(max(game.min_players, 3) if name != "opensky" else 2, 3)
        rng = random.Random(3)
        chain: list[tuple[str, takeback.Undo]] = []
        version, state_of = 0, None
        entries: list[dict] = []
        while not state.is_over() and len(chain) < 2 and version < 2000:
            before, version = state.clone(), version + 1
            seat, action, _ = random_step(state, rng)
            undo = takeback.after_move(game, before, seat, action, state, deadlines={}, reserves={},
                                       state_of=version - 1 if state_of is None else state_of)
            entries.append({"v": version, "seat": seat, "kind": "move", "action": action.to_json(),
                            **({"undo": undo.to_json()} if undo else {})})
            chain = [*chain, (before.digest(), undo)] if undo is not None else []
        assert len(chain) == 2, f"{name}: no two decisions in a row could be taken back"
        undo = chain[-1][1]
        for digest, step in reversed(chain):
            assert undo == step
            restored = replay_entries(game.new(state.num_players, 3), game, entries[:undo.to])
            assert restored.digest() == digest
            undo = takeback.entry_undo(entries, undo.to)
        assert undo is None  # the decision before the chain was final, or another seat's
