"""Helpers for Aeroplanes rule tests: scripted dice, quick setups, direct position edits."""

from __future__ import annotations

import random
from typing import Any

import engine
from engine.aeroplanes.actions import ChooseAction, ChooseHome
from engine.aeroplanes.data import DATA
from engine.aeroplanes.model import EMPTY
from engine.aeroplanes.state import AeroState
from engine.core import Event

GAME = engine.get("aeroplanes")
IDX = DATA.index


class ScriptedRandom(random.Random):
    """A Random whose randrange returns scripted values first (then falls back to the seeded stream)."""

    def __init__(self, seed: int = 0):
        super().__init__(seed)
        self.script: list[int] = []

    def randrange(self, *args: Any, **kwargs: Any) -> int:  # type: ignore[override]
        if self.script:
            return self.script.pop(0)
        return super().randrange(*args, **kwargs)


def risk(*faces: int) -> list[int]:
    """randrange(6) values giving these Risk die faces (0 = skull)."""
    return [0 if f == 0 else f - 1 for f in faces]


def script(state: AeroState, values: list[int]) -> None:
    """Make the state's next randrange calls return `values`."""
    if not isinstance(state.rng, ScriptedRandom):
        rng = ScriptedRandom()
        rng.setstate(state.rng.getstate())
        state.rng = rng
    state.rng.script.extend(values)


def take_marker(state: AeroState, roll: int) -> tuple[int, list[Event]]:
    """The player to act takes the subsidy marker (the caller has emptied the notes, AE-12) and the era's
    first-player die shows `roll` (AE-12.3).

    The die is rolled after the era's refill draws, whose count depends on the position, so no fixed
    script of randrange values reaches it: the state is played on clones under RNG seeds 0, 1, ... until one
    rolls `roll`, and the state takes that clone's outcome."""
    seat = state.current
    for seed in range(200):
        trial = state.clone()
        trial.rng = random.Random(seed)
        events = trial.apply(seat, ChooseAction("subsidy"))
        die = next(e for e in events if e.type == "first_player_die")
        if die.data["roll"] == roll:
            state.copy_fields_from(trial)
            state._legal = None
            return seat, events
    raise AssertionError(f"no seed below 200 rolls a {roll}")


def started(players: int = 4, seed: int = 1, homes: dict[int, str] | None = None) -> AeroState:
    """A game past the home-airport choice (phase 'turn'); `homes` maps seat -> start city id."""
    state = GAME.new(players, seed)
    homes = homes or {}
    while state.phase == "home":
        seat = state.current
        city = homes.get(seat)
        action = ChooseHome(city) if city else state.legal_actions(seat)[0]
        state.apply(seat, action)
    return state


def touch(state: AeroState) -> AeroState:
    """Call after editing a position directly: recompute derived data and drop the legal-action cache."""
    state.refresh_owned()
    state._legal = None
    return state


def put(state: AeroState, seat: int, dest: str, stage: int) -> None:
    """Put seat's tile of `stage` (0 = home) into the first empty slot of `dest`."""
    row = state.slots[IDX[dest]]
    row[row.index(EMPTY)] = seat * 4 + stage
    touch(state)


def give_card(state: AeroState, seat: int, number: int, tiles: int | None = None, base: int | None = None,
              face_up: bool = True) -> list:
    """Hand `seat` aircraft card `number` (tiles default to the printed count)."""
    card = DATA.cards[number - 1]
    record = [number, 1, 1 if face_up else 0, card.capacity if base is None else base,
              card.tiles if tiles is None else tiles, []]
    state.cards[seat].append(record)
    state.cards[seat].sort(key=lambda c: c[0])
    touch(state)
    return record


def card_with(long_haul: bool, stage: int) -> int:
    """The lowest card number with this long-haul flag and stage."""
    return next(c.number for c in DATA.cards if c.long_haul == long_haul and c.stage == stage)


def types(actions: list) -> set[str]:
    return {a.TYPE for a in actions}
