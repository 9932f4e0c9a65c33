"""The question every title's take-back tests ask (tests/<title>/test_take_back.py): may this decision be taken back?"""

from __future__ import annotations

from engine.core import Action, Game, IllegalAction, State


def take_back_verdict(game: Game, state: State, seat: int, action: Action) -> IllegalAction | None:
    """Apply `action` for `seat` to `state` (it stays applied); None when `game` lets the seat take it back, else
    the engine's refusal, with its rule id."""
    before = state.clone()
    state.apply(seat, action)
    try:
        game.check_take_back(before, seat, action, state)
    except IllegalAction as exc:
        return exc
    return None
