"""Shared helpers for the Blue Skies unit tests: build positions and drive steps."""

from __future__ import annotations

import engine
from engine.blueskies import actions as act
from engine.blueskies.state import BUY, PLAY, SETUP_BUY, BlueSkiesState

GAME = engine.get("blueskies")
N_AIRPORTS = 30


def new(players: int = 3, seed: int = 1, first: int = 0) -> BlueSkiesState:
    return GAME.new(players, seed, {"first_player": first})


def idx(code: str) -> int:
    return act.INDEX[code]


def do(state: BlueSkiesState, seat: int, obj: dict):
    """Apply an action given as JSON, the way a client sends it."""
    return state.apply(seat, GAME.action_from_json(obj))


def clear_board(state: BlueSkiesState) -> None:
    """Empty every airport (no passengers, no gates)."""
    state.pax = [0] * N_AIRPORTS
    state.gates = [[] for _ in range(N_AIRPORTS)]
    state.rebuild_derived()


def set_airport(state: BlueSkiesState, code: str, pax: int, owners: list[int]) -> None:
    state.pax[idx(code)] = pax
    state.gates[idx(code)] = list(owners)
    state.rebuild_derived()


def gate_counts(state: BlueSkiesState, code: str) -> list[int]:
    view = state.view(None)
    airport = next(a for a in view["airports"] if a["code"] == code)
    return [g["passengers"] for g in airport["gates"]]


def set_hand(state: BlueSkiesState, seat: int, codes: list[str]) -> None:
    """Give `seat` exactly these cards, taking them from (or returning others to) the deck."""
    for c in state.hands[seat]:
        state.deck.append(c)
    cards = sorted(idx(c) for c in codes)
    for c in cards:
        if c in state.deck:
            state.deck.remove(c)
        elif c in state.discard:
            state.discard.remove(c)
        else:  # held by another seat: swap it for a deck card
            other = next(h for s, h in enumerate(state.hands) if s != seat and c in h)
            other.remove(c)
            other.append(state.deck.pop())
            other.sort()
    state.deck.sort()
    state.hands[seat] = cards


def finish_setup(state: BlueSkiesState) -> None:
    while state.phase == SETUP_BUY:
        state.apply(state.actor, act.DONE)


def to_play(state: BlueSkiesState) -> None:
    """Everyone ends their purchase turns until step 2 begins."""
    while state.phase in (SETUP_BUY, BUY):
        state.apply(state.actor, act.DONE)
    assert state.phase == PLAY


def play_first_cards(state: BlueSkiesState) -> list:
    """Every remaining seat in step 2 plays its first card; returns all events."""
    events = []
    while state.phase == PLAY:
        seat = state.actor
        events += state.apply(seat, act.PLAY[state.hands[seat][0]])
    return events


def total_cards(state: BlueSkiesState) -> int:
    return len(state.deck) + len(state.discard) + sum(len(h) for h in state.hands)
