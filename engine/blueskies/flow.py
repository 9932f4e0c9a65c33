"""The round's flow (BS-8): whose turn, and the steps that follow the decisions without one.

Functions of the state rather than methods: the module is compiled with the state by mypyc (`ai/native.py`),
where a call between modules of the group costs what a method call does, and a compiled class cannot take
mixins as OpenSky's state does.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine.blueskies.constants import (
    AIRPORTS,
    BUY,
    HELP,
    HELP_DISCARD,
    N_AIRPORTS,
    OVER,
    PLAY,
    SETUP_BUY,
    SPECIAL_DISCARD,
)
from engine.blueskies.data import BOARD
from engine.blueskies.scoring import final_scoring
from engine.blueskies.views import json_copy
from engine.core import Event

if TYPE_CHECKING:
    from engine.blueskies.state import BlueSkiesState


def seat_at(state: BlueSkiesState, pos: int) -> int:
    """The seat at position `pos` of the step's order: reversed in setup (BS-7.6), else from the first player."""
    if state.phase == SETUP_BUY:
        return (state.first - 1 - pos) % state.num_players
    return (state.first + pos) % state.num_players


def start_purchase_turn(state: BlueSkiesState) -> None:
    state.actor = seat_at(state, state.pos)
    state.budget = BOARD.budget
    state.added = 0


def advance(state: BlueSkiesState, events: list[Event]) -> None:
    """The current seat finished its part of the step: next seat, or the next step."""
    state.pos += 1
    n = state.num_players
    phase = state.phase
    if phase in (SETUP_BUY, BUY):
        if state.pos < n:
            start_purchase_turn(state)
            return
        if phase == SETUP_BUY:
            state.round = 1
            begin_round(state, events)
        else:
            state.phase = PLAY
            state.pos = 0
            next_player_to_play(state, events)
        return
    if phase in (PLAY, SPECIAL_DISCARD):
        state.phase = PLAY
        next_player_to_play(state, events)
        return
    if phase == HELP:
        next_helper(state, events)
        return
    # HELP_DISCARD
    if state.pos < n:
        state.actor = seat_at(state, state.pos)
        return
    after_help_discards(state, events)


def begin_round(state: BlueSkiesState, events: list[Event]) -> None:
    events.append(Event("round", {"round": state.round, "first_player": state.first}))
    state.phase = BUY
    state.pos = 0
    start_purchase_turn(state)


def next_player_to_play(state: BlueSkiesState, events: list[Event]) -> None:
    """Step 2 in turn order; a seat with no card and no special left has nothing to do."""
    n = state.num_players
    while state.pos < n:
        seat = seat_at(state, state.pos)
        if state.hands[seat] or not state.special_used[seat]:
            state.actor = seat
            return
        events.append(Event("skip_play", {"seat": seat}))
        state.pos += 1
    after_plays(state, events)


def after_plays(state: BlueSkiesState, events: list[Event]) -> None:
    """Steps 3-5, then government help or the end of the round."""
    n = state.num_players
    for _ in range(n):  # step 3 (BS-8.3)
        state._reveal(events)
    scores = state.points
    income = state.income
    for s in range(n):  # step 4 (BS-8.4)
        scores[s] += income[s]
    events.append(Event("income", {"income": list(income), "scores": list(scores)}))
    if min(state.supply) == 0 or max(scores) >= BOARD.end_score:  # step 5 (BS-8.5)
        finish(state, events)
        return
    if not state.help_used and max(scores) >= BOARD.government_threshold:  # step 6 (BS-8.6)
        state.help_used = True
        leader = max(scores)
        state.help_entitlement = [min(N_AIRPORTS, (leader - s + 2) // 3) for s in scores]
        events.append(Event("government_help", {"entitlement": list(state.help_entitlement)}))
        state.phase = HELP
        state.pos = 0
        next_helper(state, events)
        return
    end_round(state, events)


def next_helper(state: BlueSkiesState, events: list[Event]) -> None:
    """Next seat (turn order) entitled to government-help airports, else the discards."""
    n = state.num_players
    state.help_chosen = []
    while state.pos < n:
        seat = seat_at(state, state.pos)
        if state.help_entitlement[seat] > 0:
            state.actor = seat
            return
        state.pos += 1
    state.phase = HELP_DISCARD
    state.pos = 0
    state.actor = seat_at(state, 0)


def after_help_discards(state: BlueSkiesState, events: list[Event]) -> None:
    """Discards are already in the deck (it has no order); draw back to 3 in turn order (BS-8.6.4)."""
    for k in range(state.num_players):
        state._refill(seat_at(state, k), events)
    end_round(state, events)


def end_round(state: BlueSkiesState, events: list[Event]) -> None:
    """Step 7 local airlines, step 8 first-player marker (BS-8.7, BS-8.8)."""
    gates = state.gates
    pax = state.pax
    for a in AIRPORTS:
        if pax[a] > 0 and not gates[a]:
            state._open_local(a, events)
    state.first = (state.first + 1) % state.num_players
    state.round += 1
    begin_round(state, events)


def finish(state: BlueSkiesState, events: list[Event]) -> None:
    """BS-9: final scoring, then the game is over."""
    gains, breakdown = final_scoring(BOARD, state.num_players, state.gates, state.special_used)
    for s, g in enumerate(gains):
        state.points[s] += g
    breakdown["scores"] = list(state.points)
    state.final = breakdown
    state.phase = OVER
    state.actor = -1
    events.append(Event("game_over", json_copy(breakdown)))
