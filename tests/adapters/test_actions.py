"""The action table: a fixed vocabulary per game, and tokens that reach exactly the engine's legal actions."""

from __future__ import annotations

import random

import pytest

import engine
from engine.adapters.actions import END, Cursor, rank_returns, table
from engine.playout import random_step
from tests.adapters.conftest import EXTREMES, GAMES


@pytest.mark.parametrize("name", GAMES)
def test_the_vocabulary_is_fixed_and_names_every_action_type(name):
    t = table(name)
    assert t.tokens == table(name).tokens
    assert len(set(t.tokens)) == t.size
    assert {f"type:{kind}" for kind in engine.get(name).codec.types} | {END} <= set(t.tokens)
    assert [t.index[label] for label in t.tokens] == list(range(t.size))


@pytest.mark.parametrize(("name", "players"), EXTREMES)
def test_every_legal_action_has_its_own_token_sequence_within_the_bound(name, players):
    """Encoding is injective over the legal actions of each decision and no sequence is a prefix of another,
    so the tokens name one action; and random play (engine actions, not tokens) meets no value outside the
    vocabulary."""
    t = table(name)
    state = engine.get(name).new(players, 4)
    rng = random.Random(4)
    while not state.is_over():
        for seat in state.to_act():
            sequences = [t.encode(a) for a in state.legal_actions(seat)]
            assert len(set(sequences)) == len(sequences)
            assert all(len(s) <= t.max_tokens for s in sequences)
            for s in sequences:
                assert not any(o != s and o[: len(s)] == s for o in sequences), "a sequence is a prefix of another"
        random_step(state, rng)


@pytest.mark.parametrize(("name", "players"), EXTREMES)
def test_tokens_reach_exactly_the_legal_actions(name, players):
    """Walking every branch of the token tree from a decision reaches each legal action once and nothing else."""
    game = engine.get(name)
    state = game.new(players, 6)
    rng = random.Random(6)
    checked = 0
    while not state.is_over():
        if rng.random() < 0.2:
            seat = state.to_act()[0]
            reached = []
            frontier = [Cursor(state.clone())]
            while frontier:
                cursor = frontier.pop()
                for token in cursor.legal_tokens():
                    branch = cursor.copy()
                    action = branch.step(token)
                    if action is None:
                        frontier.append(branch)
                    else:
                        reached.append(action)
            assert sorted(map(repr, reached)) == sorted(map(repr, state.legal_actions(seat)))
            checked += 1
        random_step(state, rng)
    assert checked


def test_an_illegal_token_changes_nothing():
    cursor = Cursor(engine.get("opensky").new(2, 1))
    before = cursor.state.digest()
    illegal = next(t for t in range(cursor.table.size) if t not in cursor.legal_tokens())
    with pytest.raises(ValueError, match="not legal"):
        cursor.step(illegal)
    assert cursor.state.digest() == before and cursor.prefix == ()


def test_a_cursor_pickles_and_copies_as_the_full_state():
    import pickle

    cursor = Cursor(engine.get("blueskies").new(3, 2))
    rng = random.Random(2)
    for _ in range(30):
        cursor.step(rng.choice(cursor.legal_tokens()))
    for other in (pickle.loads(pickle.dumps(cursor)), cursor.copy()):
        assert other.state.digest() == cursor.state.digest() and other.prefix == cursor.prefix
        token = rng.choice(cursor.legal_tokens())
        other.step(token)
        assert cursor.state.digest() != other.state.digest() or cursor.prefix != other.prefix


def test_rank_returns_are_pairwise_zero_sum_and_use_the_tie_break():
    assert rank_returns([10, 5, 1], [0]) == [1.0, 0.0, -1.0]
    assert rank_returns([7, 7, 1], [1]) == [0.0, 1.0, -1.0]
    assert rank_returns([7, 7, 1], [0, 1]) == [0.5, 0.5, -1.0]
    assert rank_returns([3, 3], [0, 1]) == [0.0, 0.0]
    for scores in ([4, 9, 9, 2, 9], [1, 1, 1]):
        winners = [i for i, s in enumerate(scores) if s == max(scores)][:1]
        returns = rank_returns(scores, winners)
        assert abs(sum(returns)) < 1e-9 and all(-1 <= r <= 1 for r in returns)
