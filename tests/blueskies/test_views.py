"""Hidden information (BS-1.2.6, BS-6.1), determinize, default actions, JSON and bad input."""

from __future__ import annotations

import json
import random

import pytest

from engine.blueskies import actions as act
from engine.blueskies.flow import advance
from engine.blueskies.state import BUY, HELP, HELP_DISCARD, PLAY, SETUP_BUY, SPECIAL_DISCARD
from engine.core import IllegalAction
from engine.playout import random_step
from tests.blueskies.helpers import GAME, clear_board, new, play_first_cards, to_play


def test_BS_6_1_view_shows_only_the_seats_own_hand_and_never_the_rng():
    state = new(4, seed=3)
    for seat in range(4):
        view = state.view(seat)
        text = json.dumps(view)
        assert view["hand"] == [act.CODES[c] for c in state.hands[seat]]
        assert "rng" not in view and "deck" not in view and "hands" not in view
        assert view["hand_counts"] == [3, 3, 3, 3]
        assert len(text) > 100


def test_BS_6_1_draw_events_reveal_the_card_only_to_the_drawer():
    state = new(3)
    to_play(state)
    events = state.apply(state.actor, act.PLAY[state.hands[state.actor][0]])
    draws = [e for e in events if e.type == "draw_cards"]
    assert draws and all(e.visible_to == (e.data["seat"],) for e in draws)
    assert [e.data["cards"] for e in draws] != [] and all(len(e.data["cards"]) == 1 for e in draws)
    public = [e for e in events if e.type == "draw"]
    assert public and all(e.visible_to is None and set(e.data) == {"seat", "count"} for e in public)


def test_BS_6_1_determinize_keeps_own_hand_and_public_state_and_deals_others_from_the_unseen():
    state = new(4, seed=5)
    to_play(state)
    seen_other_hands = set()
    for k in range(20):
        sample = state.determinize(1, random.Random(k))
        assert sample.view(1) == state.view(1)
        assert sample.hands[1] == state.hands[1]
        assert sample.discard == state.discard
        assert [len(h) for h in sample.hands] == [len(h) for h in state.hands]
        unseen = sorted(state.deck + [c for s, h in enumerate(state.hands) if s != 1 for c in h])
        assert sorted(sample.deck + [c for s, h in enumerate(sample.hands) if s != 1 for c in h]) == unseen
        seen_other_hands.add(tuple(map(tuple, sample.hands)))
        assert sample.rng.getstate() != state.rng.getstate()
    assert len(seen_other_hands) > 1


def test_default_actions_for_an_expired_clock():
    state = new(3)
    assert state.phase == SETUP_BUY and state.default_action(state.actor) == act.DONE
    to_play(state)
    seat = state.actor
    assert state.phase == PLAY and state.default_action(seat) == act.PLAY[state.hands[seat][0]]
    state.apply(seat, act.SPECIAL[0])
    assert state.phase == SPECIAL_DISCARD and state.default_action(seat) == act.Discard(())
    clear_board(state)
    state.red = state.green = 0
    state.apply(seat, act.Discard(()))
    state.points = [40, 0, 0]
    play_first_cards(state)
    assert state.phase == HELP and state.default_action(state.actor) == act.HELP_DONE
    while state.phase == HELP:
        state.apply(state.actor, state.default_action(state.actor))
    assert state.phase == HELP_DISCARD and state.default_action(state.actor) == act.Discard(())
    with pytest.raises(IllegalAction):
        state.default_action((state.actor + 1) % 3)


def test_actions_in_the_wrong_phase_or_by_the_wrong_seat_are_rejected_unchanged():
    state = new(3)
    finish = state.actor
    before = state.digest()
    for seat, action in [
        ((finish + 1) % 3, act.DONE),
        (finish, act.PLAY[0]),
        (finish, act.SPECIAL[0]),
        (finish, act.HELP[0]),
        (finish, act.HELP_DONE),
        (finish, act.Discard(())),
        (True, act.DONE),
        (7, act.DONE),
    ]:
        with pytest.raises(IllegalAction):
            state.apply(seat, action)
        assert state.digest() == before
    to_play(state)
    with pytest.raises(IllegalAction, match="step 1"):
        state.apply(state.actor, act.BUY[0])
    with pytest.raises(IllegalAction, match="purchase turn"):
        state.apply(state.actor, act.DONE)


def test_json_round_trip_and_bad_state_json_is_a_value_error():
    state = new(5, seed=8)
    rng = random.Random(8)
    for _ in range(60):
        random_step(state, rng)
    copy = GAME.from_json(json.loads(json.dumps(state.to_json())))
    assert copy.digest() == state.digest() and copy.income == state.income
    assert copy.nextcost == state.nextcost and copy.buyable == state.buyable
    for bad in ({}, {"game": "opensky"}, {**state.to_json(), "hands": [["ZZZ"]]}, {**state.to_json(), "pax": [1]}):
        with pytest.raises(ValueError):
            GAME.from_json(bad)


def test_action_json_vocabulary_decodes_and_rejects_garbage():
    assert GAME.action_from_json({"type": "buy_gate", "airport": "ATL"}) == act.BuyGate("ATL")
    assert GAME.action_from_json({"type": "discard", "cards": ["SEA", "ATL"]}) == act.Discard(("SEA", "ATL"))
    assert GAME.action_from_json({"type": "done"}) == act.DONE
    for bad in ({"type": "buy_gate"}, {"type": "buy_gate", "airport": 3}, {"type": "fly"}, []):
        with pytest.raises(ValueError):
            GAME.action_from_json(bad)


def test_describe_exposes_the_static_board_for_clients():
    board = GAME.describe()["board"]
    json.dumps(board)
    assert len(board["airports"]) == 30 and len(board["regions"]) == 7


def test_BS_8_view_names_the_phase_and_the_step_of_the_round():
    state = new(2)
    assert (state.view(0)["phase"], state.view(0)["step"]) == ("setup_buy", None)
    to_play(state)
    assert (state.view(0)["phase"], state.view(0)["step"]) == ("play", 2)
    play_first_cards(state)
    assert state.phase == BUY and state.round == 2
    assert (state.view(1)["phase"], state.view(1)["step"], state.view(1)["round"]) == ("buy", 1, 2)


def test_view_of_a_seat_that_does_not_exist_is_refused():
    state = new(3)
    for bad in (3, -1, True):
        with pytest.raises(IllegalAction, match="not a seat"):
            state.view(bad)


def test_BS_8_2_1_a_seat_without_cards_and_without_the_special_action_is_skipped():
    state = new(3)
    to_play(state)
    seat = state.actor
    state.deck.extend(state.hands[seat])
    state.deck.sort()
    state.hands[seat] = []
    state.special_used[seat] = True
    # re-enter step 2 at this seat: it has no possible decision
    state.pos -= 1
    events = []
    advance(state, events)
    assert state.actor == (seat + 1) % 3
    assert [e.data for e in events if e.type == "skip_play"] == [{"seat": seat}]


def test_BS_6_1_determinize_deals_every_unseen_card_alike():
    """The other hands are a uniform draw from the unseen cards (deck + their hands): over many
    determinizations each unseen card lands in them as often as its count says, within 4 standard errors."""
    state = new(4, seed=5)
    to_play(state)
    observer = 1
    unseen = state.deck + [c for s, h in enumerate(state.hands) if s != observer for c in h]
    dealt = sum(len(h) for s, h in enumerate(state.hands) if s != observer)
    rng = random.Random(3)
    runs = 3000
    counts: dict[int, int] = {}
    for _ in range(runs):
        sample = state.determinize(observer, rng)
        assert sample.deck == sorted(sample.deck)
        for s, hand in enumerate(sample.hands):
            if s != observer:
                for c in hand:
                    counts[c] = counts.get(c, 0) + 1
    for card in set(unseen):
        copies = unseen.count(card)
        p = dealt / len(unseen)  # each copy's chance to be dealt
        expected = runs * copies * p
        sd = (runs * copies * p * (1 - p)) ** 0.5 + 1e-9
        assert abs(counts.get(card, 0) - expected) <= 4 * sd, (card, counts.get(card, 0), expected)


def _help_discard_position():
    """Government help under way: seat 0 (a leader) has discarded ATL, ATL, SEA into the deck; seats 1 and
    2 have yet to discard, so nobody has drawn since."""
    from tests.blueskies.helpers import do, set_hand

    state = new(3, seed=1)
    to_play(state)
    clear_board(state)
    state.red = state.green = 0
    state.points = [35, 29, 29]
    play_first_cards(state)
    state.apply(1, act.HELP_DONE)
    state.apply(2, act.HELP_DONE)
    assert state.phase == HELP_DISCARD and state.actor == 0
    set_hand(state, 0, ["ATL", "ATL", "SEA"])
    do(state, 0, {"type": "discard", "cards": ["SEA", "ATL", "ATL"]})
    return state


def test_BS_8_6_4_determinize_keeps_the_seats_own_help_discards_in_the_deck():
    """BS-8.6.4: the seat knows its discards went into the deck and nobody has drawn since, so no
    determinization may deal them to another seat; its view says so."""
    state = _help_discard_position()
    atl, sea = act.INDEX["ATL"], act.INDEX["SEA"]
    for k in range(200):
        sample = state.determinize(0, random.Random(k))
        assert sample.deck.count(atl) >= 2 and sample.deck.count(sea) >= 1, k
        assert sample.view(0) == state.view(0)
    assert state.view(0)["deck_known"]["at_least"] == {"SEA": 1, "ATL": 2}
    assert state.view(1)["deck_known"]["at_least"] == {} and state.view(None)["deck_known"] is None


def test_BS_6_3_after_a_reshuffle_the_deck_is_the_old_discard_pile():
    """BS-6.3: a reshuffle turns the face-up discard pile into the deck, so every seat knows what the deck
    can hold; a determinization keeps the other seats' earlier cards out of it."""
    state = new(3, seed=2)
    to_play(state)
    state.discard = sorted(state.discard + state.deck)  # the deck is used up: the next draw reshuffles
    state.deck = []
    seat = state.actor
    card = state.hands[seat][0]
    pile = sorted([*state.discard, card])  # the played card joins the pile before the draw
    events = state.apply(seat, act.PLAY[card])
    assert any(e.type == "reshuffle" for e in events) and state.phase == PLAY
    assert all(c in pile for c in state.deck)
    for seat in range(3):
        for k in range(50):
            sample = state.determinize(seat, random.Random(k))
            assert all(c in pile for c in sample.deck), (seat, k)
            assert sorted(sample.deck) == sample.deck and sample.view(seat) == state.view(seat)
    for seat in range(3):
        known = state.view(seat)["deck_known"]["at_most"]
        assert all(state.deck.count(act.INDEX[c]) <= n for c, n in known.items())
        assert all(act.CODES[c] in known for c in state.deck)
