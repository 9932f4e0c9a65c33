"""Engine contract conformance: every registered game, every player count, every option.

These tests know nothing about any one game. A game passes them only if it is
deterministic, serialisable, redacts hidden information, and never offers an
action it then refuses.
"""

from __future__ import annotations

import itertools
import json
import random
from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import engine
from engine.core import Action, Game, IllegalAction, State, Whereabouts, canonical_json
from engine.playout import play_random, random_step

#: Options with at most this many choices are crossed with each other and with every player count; one
#: with more (e.g. a seat number) is covered one choice at a time, so the suite's size stays bounded.
FULL_PRODUCT_CHOICES = 3


def _accepts(game: Game, players: int, options: dict) -> bool:
    try:
        game.new(players, 0, options)
    except ValueError:
        return False
    return True


def _configs() -> list[tuple[str, int, dict]]:
    """Every player count with every combination of the small options (large ones at their default), then
    each other choice of a large option at the largest player count that accepts it."""
    out = []
    for name in engine.games():
        game = engine.get(name)
        small = [k for k, spec in game.options.items() if len(spec["choices"]) <= FULL_PRODUCT_CHOICES]
        defaults = {k: spec["default"] for k, spec in game.options.items()}
        players_range = range(game.min_players, game.max_players + 1)
        for players in players_range:
            for combo in itertools.product(*(game.options[k]["choices"] for k in small)):
                out.append((name, players, {**defaults, **dict(zip(small, combo))}))
        for key, spec in game.options.items():
            if key in small:
                continue
            for choice in spec["choices"]:
                options = {**defaults, key: choice}
                accepted = [p for p in players_range if _accepts(game, p, options)]
                if choice != spec["default"] and accepted:
                    out.append((name, max(accepted), options))
    return out


CONFIGS = _configs()
IDS = [f"{n}-{p}p-" + "-".join(f"{v}" for v in o.values()) for n, p, o in CONFIGS]
GAMES = engine.games()
SEEDS = [1, 2, 3]


def _without_rng(obj: dict) -> dict:
    return {k: v for k, v in obj.items() if k != "rng"}


def _new(name: str, players: int, options: dict, seed: int) -> State:
    return engine.get(name).new(players, seed, options)


def test_registry_lists_games_with_their_descriptions():
    for name in engine.games():
        game = engine.get(name)
        assert isinstance(game, Game)
        assert game.name == name
        described = game.describe()
        json.dumps(described)
        assert described["min_players"] <= described["max_players"]
        for spec in game.options.values():
            assert spec["default"] in spec["choices"]
            assert isinstance(spec["description"], str) and spec["description"]
    with pytest.raises(KeyError, match="unknown game"):
        engine.get("no-such-game")


@pytest.mark.parametrize("name", GAMES)
def test_bad_player_count_and_options_raise_value_error(name):
    game = engine.get(name)
    for bad in (game.min_players - 1, game.max_players + 1, "3", True):
        with pytest.raises(ValueError):
            game.new(bad, 1)
    with pytest.raises(ValueError, match="unknown option"):
        game.new(game.min_players, 1, {"no_such_option": 1})
    for key in game.options:
        with pytest.raises(ValueError, match=key):
            game.new(game.min_players, 1, {key: "not-a-choice"})


@pytest.mark.parametrize(("name", "players", "options"), CONFIGS, ids=IDS)
def test_random_playouts_terminate_and_keep_the_contract(name, players, options):
    game = engine.get(name)
    for seed in SEEDS:
        state = _new(name, players, options, seed)
        rng = random.Random(seed)
        steps = 0
        while not state.is_over():
            assert steps < game.max_game_length, "playout did not terminate within the bound"
            seats = state.to_act()
            assert seats, "to_act() is empty although the game is not over"
            assert seats == sorted(set(seats))
            for seat in range(players):
                actions = state.legal_actions(seat)
                if seat in seats:
                    assert actions, f"seat {seat} must act but has no legal action"
                    assert len(set(actions)) == len(actions), "duplicate legal actions"
                    assert actions == state.legal_actions(seat), "legal_actions is not deterministic"
                else:
                    assert actions == [], f"seat {seat} need not act but was offered actions"
            _, _, events = random_step(state, rng)
            for event in events:
                json.dumps(event.to_json())
                if event.visible_to is not None:
                    assert all(0 <= s < players for s in event.visible_to)
            steps += 1
        assert state.to_act() == []
        scores = state.scores()
        assert len(scores) == players and all(isinstance(s, int) for s in scores)
        winners = state.winners()
        assert winners and set(winners) <= set(range(players))
        best = max(scores)
        assert all(scores[w] == best for w in winners), "a winner does not have the top score"


@pytest.mark.parametrize(("name", "players", "options"), CONFIGS, ids=IDS)
def test_actions_round_trip_through_json(name, players, options):
    game = engine.get(name)
    state = _new(name, players, options, 11)
    rng = random.Random(11)
    while not state.is_over():
        for seat in state.to_act():
            for action in state.legal_actions(seat):
                assert isinstance(action, Action)
                hash(action)
                encoded = json.loads(json.dumps(action.to_json()))
                assert encoded["type"] == action.TYPE
                assert game.action_from_json(encoded) == action
        random_step(state, rng)


@pytest.mark.parametrize(("name", "players", "options"), CONFIGS, ids=IDS)
def test_json_round_trip_mid_game_continues_identically(name, players, options):
    game = engine.get(name)
    state = _new(name, players, options, 5)
    rng = random.Random(5)
    checkpoints = 0
    while not state.is_over():
        if rng.random() < 0.1:
            copy = game.from_json(json.loads(json.dumps(state.to_json())))
            assert copy.digest() == state.digest()
            assert canonical_json(copy.view(None)) == canonical_json(state.view(None))
            left, right = random.Random(checkpoints), random.Random(checkpoints)
            for _ in range(25):
                if state.is_over():
                    break
                a = random_step(state, left)
                b = random_step(copy, right)
                assert a[:2] == b[:2]
                assert [e.to_json() for e in a[2]] == [e.to_json() for e in b[2]]
                assert copy.digest() == state.digest()
            checkpoints += 1
        else:
            random_step(state, rng)
    assert checkpoints > 0


@pytest.mark.parametrize(("name", "players", "options"), CONFIGS, ids=IDS)
def test_same_seed_and_actions_give_the_same_game(name, players, options):
    a = _new(name, players, options, 99)
    b = _new(name, players, options, 99)
    assert a.digest() == b.digest()
    rng = random.Random(99)
    while not a.is_over():
        seat, action, _ = random_step(a, rng)
        b.apply(seat, action)
        assert a.digest() == b.digest()
    assert a.scores() == b.scores()


@pytest.mark.parametrize(("name", "players", "options"), CONFIGS, ids=IDS)
def test_illegal_actions_raise_and_change_nothing(name, players, options):
    state = _new(name, players, options, 3)
    rng = random.Random(3)
    seen: list[Action] = []
    probes = 0
    while not state.is_over():
        seats = state.to_act()
        legal = {s: set(state.legal_actions(s)) for s in range(players)}
        for action in list(legal[seats[0]])[:3]:
            if action not in seen:
                seen.append(action)
        before = state.digest()
        # A seat that need not act, acting with someone else's legal action.
        idle = [s for s in range(players) if s not in seats]
        if idle:
            with pytest.raises(IllegalAction):
                state.apply(idle[0], state.legal_actions(seats[0])[0])
            assert state.digest() == before
        # A seat that does not exist, or is not an int (True would be seat 1 to a careless check, and to a
        # parameter typed int in a module compiled by mypyc).
        for bad_seat in (-1, players, True, "0", None):
            with pytest.raises(IllegalAction):
                state.apply(bad_seat, state.legal_actions(seats[0])[0])
            assert state.digest() == before
        # Something that is not an action of the game.
        for bad_action in (None, {"type": "done"}, "pass"):
            with pytest.raises(IllegalAction):
                state.apply(seats[0], bad_action)
            assert state.digest() == before
        # Actions that were legal at some other moment but are not now.
        for action in rng.sample(seen, min(4, len(seen))):
            if action not in legal[seats[0]]:
                with pytest.raises(IllegalAction) as info:
                    state.apply(seats[0], action)
                assert info.value.message
                assert state.digest() == before
                probes += 1
        random_step(state, rng)
    assert probes > 0


@pytest.mark.parametrize(("name", "players", "options"), CONFIGS, ids=IDS)
def test_every_offered_action_is_accepted(name, players, options):
    state = _new(name, players, options, 8)
    rng = random.Random(8)
    step = 0
    while not state.is_over():
        if step % 5 == 0:
            for seat in state.to_act():
                for action in state.legal_actions(seat):
                    trial = state.clone()
                    trial.apply(seat, action)
        random_step(state, rng)
        step += 1


@pytest.mark.parametrize(("name", "players", "options"), CONFIGS, ids=IDS)
def test_clone_is_independent(name, players, options):
    state = _new(name, players, options, 21)
    rng = random.Random(21)
    while not state.is_over():
        before = state.digest()
        copy = state.clone()
        assert copy.digest() == before
        play_random(copy, random.Random(rng.random()), max_steps=10)
        assert state.digest() == before
        random_step(state, rng)


@pytest.mark.parametrize(("name", "players", "options"), CONFIGS, ids=IDS)
def test_determinize_keeps_the_view_and_resamples_the_hidden(name, players, options):
    """View of a determinization equals the seat's view; hidden parts do get resampled."""
    state = _new(name, players, options, 13)
    rng = random.Random(13)
    resampled = False
    step = 0
    while not state.is_over():
        if step % 3 == 0:
            truth = _without_rng(state.to_json())
            for seat in range(players):
                view = canonical_json(state.view(seat))
                json.loads(view)
                for k in range(3):
                    sample = state.determinize(seat, random.Random(step * 31 + seat * 7 + k))
                    assert canonical_json(sample.view(seat)) == view
                    if _without_rng(sample.to_json()) != truth:
                        resampled = True
                    assert sample.to_json()["rng"] != state.to_json()["rng"], "RNG not reseeded"
                    # A determinization is a real position: it plays on to the end.
                    if k == 0 and step % 15 == 0:
                        play_random(sample, random.Random(k))
                        assert sample.is_over()
            assert state.digest() == state.clone().digest()
        random_step(state, rng)
        step += 1
    if engine.get(name).has_hidden_information:
        if not resampled:
            resampled = _resampled_at_pending_sealed_choice(name, players, options)
        assert resampled, "determinize never resampled any hidden information"


def _resampled_at_pending_sealed_choice(name: str, players: int, options: dict, games: int = 600) -> bool:
    """Fallback when one random game never reached hidden information (e.g. a game whose
    sealed bids need a network that random play rarely builds): play more random games,
    and wherever a simultaneous decision is half made (to_act() shrank from several
    seats to a non-empty subset), check that the seats still deciding get resampled
    determinizations, whose views stay identical."""
    for seed in range(1000, 1000 + games):
        state = _new(name, players, options, seed)
        rng = random.Random(seed)
        before = state.to_act()
        while not state.is_over():
            now = state.to_act()
            if len(before) > 1 and now and set(now) < set(before):
                truth = _without_rng(state.to_json())
                for seat in now:
                    view = canonical_json(state.view(seat))
                    for k in range(3):
                        sample = state.determinize(seat, random.Random(seed * 7 + k))
                        assert canonical_json(sample.view(seat)) == view
                        if _without_rng(sample.to_json()) != truth:
                            return True
            before = now
            random_step(state, rng)
    return False


def _breaches(known: dict[str, Whereabouts], held: dict[str, dict[str, int]]) -> list[str]:
    """Every way the true contents of places (`State.holdings`) contradict what a view tells of them."""
    out = [f"{place} is no place of the game" for place in known if place not in held]
    out += [f"{place} {why}" for place, w in known.items() if (why := w.breach(held.get(place, {})))]
    return out


def _components(held: dict[str, dict[str, int]]) -> Counter:
    total: Counter = Counter()
    for names in held.values():
        total.update(names)
    return total


@pytest.mark.parametrize(("name", "players", "options"), CONFIGS, ids=IDS)
def test_determinize_deals_nothing_against_what_the_seat_knows(name, players, options):
    """Nothing a seat knows to be elsewhere is dealt to another seat. Whatever a view places (`whereabouts`:
    the seat's own cards, public piles, cards it knows to be in the deck, how many each hidden place holds)
    is true of the state, and of every determinization for that seat; a determinization deals the hidden
    components anew but never makes or loses one, and every seat's view of it is coherent with it."""
    game = engine.get(name)
    rng = random.Random(29)
    for seed in (29, 30):
        state = _new(name, players, options, seed)
        step = 0
        while not state.is_over():
            truth = state.holdings()
            assert not _breaches(game.whereabouts(state.view(None)), truth), "the spectator's view lies"
            seat = state.to_act()[0] if step % 2 else step // 2 % players  # the seat to act, and each in turn
            known = game.whereabouts(state.view(seat))
            assert set(known) == set(truth), "whereabouts and holdings name different places"
            assert not _breaches(known, truth), "the seat's view lies about the state"
            sample = state.determinize(seat, random.Random(step))
            held = sample.holdings()
            assert _components(held) == _components(truth), "a determinization made or lost a component"
            assert not _breaches(known, held), f"step {step}: a determinization contradicts what seat {seat} knows"
            for other in range(players):
                assert not _breaches(game.whereabouts(sample.view(other)), held), f"seat {other}'s view of it lies"
            random_step(state, rng)
            step += 1


@pytest.mark.parametrize(("name", "players", "options"), CONFIGS, ids=IDS)
def test_spectator_view_is_json_and_hides_what_every_seat_hides(name, players, options):
    """A spectator may know nothing that some seat cannot know."""
    state = _new(name, players, options, 17)
    rng = random.Random(17)
    step = 0
    while not state.is_over():
        if step % 4 == 0:
            spectator = canonical_json(state.view(None))
            for seat in range(players):
                sample = state.determinize(seat, random.Random(step))
                assert canonical_json(sample.view(None)) == spectator
        random_step(state, rng)
        step += 1


_json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**40), 2**40) | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4),
    max_leaves=12,
)


@pytest.mark.parametrize("name", GAMES)
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_action_from_json_rejects_garbage_with_value_error(name, data):
    game = engine.get(name)
    kind = data.draw(st.sampled_from([*game.codec.types, "nope", 3, None]))
    obj = data.draw(st.one_of(_json_values, st.dictionaries(st.text(max_size=8), _json_values, max_size=4)))
    if isinstance(obj, dict) and data.draw(st.booleans()):
        obj = {**obj, "type": kind}
    try:
        action = game.action_from_json(obj)
    except ValueError:
        return
    assert isinstance(action, Action)
    assert game.action_from_json(action.to_json()) == action


@pytest.mark.parametrize("name", GAMES)
@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), choice_seed=st.integers(0, 2**32 - 1))
def test_any_seed_plays_to_a_legal_end(name, seed, choice_seed):
    game = engine.get(name)
    rng = random.Random(seed)
    players = rng.randint(game.min_players, game.max_players)
    options: dict = {}
    for key, spec in game.options.items():  # a choice the player count allows (e.g. a seat below it)
        options[key] = rng.choice([c for c in spec["choices"] if _accepts(game, players, {**options, key: c})])
    state = game.new(players, seed, options)
    steps = play_random(state, random.Random(choice_seed))
    assert state.is_over(), f"not over after {steps} steps"
    assert set(state.winners()) <= set(range(players))
