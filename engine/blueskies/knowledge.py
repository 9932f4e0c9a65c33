"""What each seat knows of the demand deck, and determinisation within it (BS-6, BS-8.6.4).

Beyond the unseen cards, a seat knows the deck after a reshuffle (the face-up pile became it, BS-6.3), minus
what it saw leave since, and its own government-help discards until others draw. The state keeps it in
`deck_cap[s]` (the cards the deck can hold, None: any unseen card), `deck_sure[s]` (cards known to be in it)
less `deck_blind[s]` (hidden draws since); a determinisation samples only decks within those bounds.
"""

from __future__ import annotations

import random
from bisect import insort
from typing import TYPE_CHECKING

from engine.blueskies.constants import AIRPORTS, FULL_COUNTS, MAX_COPIES, N_AIRPORTS

if TYPE_CHECKING:
    from engine.blueskies.state import BlueSkiesState


def note_draw(state: BlueSkiesState, card: int, drawer: int) -> None:
    """`card` left the deck, seen by everyone (drawer -1, a reveal) or by the drawer alone: those who saw it
    drop it from their bounds, the others only know that one card they cannot name is gone."""
    for s in range(state.num_players):
        sure = state.deck_sure[s]
        if drawer < 0 or s == drawer:
            cap = state.deck_cap[s]
            if cap is not None and card in cap:
                cap.remove(card)
            if card in sure:
                sure.remove(card)
        elif sure:
            state.deck_blind[s] += 1
            if state.deck_blind[s] >= MAX_COPIES:  # no card can be sure any more
                sure.clear()
                state.deck_blind[s] = 0


def note_help_discard(state: BlueSkiesState, seat: int, cards: list[int]) -> None:
    """BS-8.6.4: the discarder knows these cards are now in the deck; the others only that some cards of
    its hand are, so they no longer know what the deck can hold."""
    if not cards:
        return
    low = sure_counts(state, seat)
    sure = [c for c in AIRPORTS for _ in range(low[c])]
    for c in cards:
        insort(sure, c)
    state.deck_sure[seat] = sure
    state.deck_blind[seat] = 0
    for s in range(state.num_players):
        cap = state.deck_cap[s]
        if s != seat:
            state.deck_cap[s] = None
        elif cap is not None:
            for c in cards:
                insort(cap, c)


def sure_counts(state: BlueSkiesState, seat: int) -> list[int]:
    """Per airport, how many of its cards `seat` knows to be in the deck."""
    low = [0] * N_AIRPORTS
    for c in state.deck_sure[seat]:
        low[c] += 1
    blind = state.deck_blind[seat]
    return [k - blind if k > blind else 0 for k in low] if blind else low


def deck_bounds(state: BlueSkiesState, seat: int) -> tuple[list[int], list[int] | None]:
    """What `seat` knows of the deck, per airport: the cards surely in it, and the most it can hold (None:
    any card the seat has not seen, i.e. not in its hand or the discard pile)."""
    low = sure_counts(state, seat)
    cap = state.deck_cap[seat]
    if cap is None:
        return low, None
    unseen = list(FULL_COUNTS)
    for c in state.discard:
        unseen[c] -= 1
    for c in state.hands[seat]:
        unseen[c] -= 1
    high = [0] * N_AIRPORTS
    for c in cap:
        high[c] += 1
    return low, [min(h, u) for h, u in zip(high, unseen)]


def determinize(state: BlueSkiesState, seat: int, rng: random.Random) -> BlueSkiesState:
    """Deal the other seats' hands afresh from the cards `seat` has not seen (deck + their hands), keeping
    the deck within what the seat knows of it (`deck_bounds`). The other seats' own knowledge of the deck
    is not the seat's to know: in the sample they know no more than the unseen cards."""
    new = state.clone(copy_rng=False)
    others = [s for s in range(state.num_players) if s != seat]
    if state.deck_cap[seat] is None and not state.deck_sure[seat]:
        pool = list(state.deck)
        for s in others:
            pool.extend(state.hands[s])
        pool.sort()
        # Deal only the hands, one uniform pick at a time: the deck has no order (draws are uniform picks,
        # `_draw_card`), so the rest of the pool is the deck as it is, with no shuffle of the whole pool.
        new.deck = _deal(state, new, others, pool, rng)
    else:
        deck, pool = _sample_deck(state, seat, others, rng)
        _deal(state, new, others, pool, rng)
        new.deck = deck
    for s in others:
        new.deck_cap[s] = None
        new.deck_sure[s] = []
        new.deck_blind[s] = 0
    new.rng = random.Random(rng.getrandbits(64))
    return new


def _deal(
    state: BlueSkiesState, new: BlueSkiesState, others: list[int], pool: list[int], rng: random.Random
) -> list[int]:
    """Deal each other seat a hand of its size from the sorted `pool` in `new`; return what is left."""
    for s in others:
        hand = [pool.pop(int(rng.random() * len(pool))) for _ in range(len(state.hands[s]))]
        hand.sort()
        new.hands[s] = hand
    return pool


def _sample_deck(
    state: BlueSkiesState, seat: int, others: list[int], rng: random.Random
) -> tuple[list[int], list[int]]:
    """A deck within what `seat` knows of it (`deck_bounds`): the cards surely in it, then uniform picks
    from the rest of what it can hold; and the sorted unseen cards left for the other seats' hands."""
    unseen = [0] * N_AIRPORTS
    for c in state.deck:
        unseen[c] += 1
    for s in others:
        for c in state.hands[s]:
            unseen[c] += 1
    low, high = deck_bounds(state, seat)
    if high is None:
        high = unseen
    deck = [c for c in AIRPORTS for _ in range(low[c])]
    rest = [c for c in AIRPORTS for _ in range(min(high[c], unseen[c]) - low[c])]
    for _ in range(len(state.deck) - len(deck)):
        deck.append(rest.pop(int(rng.random() * len(rest))))
    for c in deck:
        unseen[c] -= 1
    deck.sort()
    return deck, [c for c in AIRPORTS for _ in range(unseen[c])]
