"""What a game's status, winners and turn deadlines are at a state: the service's reading of the engine's
outcome and the platform's standings (forfeits), shared by the store, the change pipeline and the reads."""

from __future__ import annotations

from collections.abc import Collection

from engine.core import State
from services.common import standings
from services.gamestate.clocks import seat_deadline
from services.gamestate.records import Meta


def next_deadlines(
    state: State, clock_ms: int, keep: dict[int, int], now: int, reserves: dict[int, int] | None = None
) -> dict[int, int]:
    """Per-seat turn-clock deadlines: each seat in to_act gets now + clock + its reserve left for a new
    decision, or keeps its running deadline (`keep`: a sealed choice others answered meanwhile)."""
    if not clock_ms or state.is_over():
        return {}
    return {seat: keep.get(seat, seat_deadline(now, clock_ms, reserves or {}, seat)) for seat in state.to_act()}


def status_of(state: State) -> str:
    return "finished" if state.is_over() else "active"


def game_status(meta: Meta, state: State) -> str:
    """The status a read shows: the stored one once the game has ended (aborted; finished, perhaps by forfeit
    before the engine's end), else what the state, perhaps newer than `meta`, says."""
    if meta.ended:
        return meta.status
    return "finished" if state.is_over() or standings.ends_by_forfeit(meta.players, meta.forfeited) else "active"


def result_winners(state: State, forfeited: Collection[int]) -> list[int]:
    """The winners of a game that finished at `state` (services/common/standings.py): never a forfeited seat; the
    seat left when the others forfeited before the engine's end."""
    return standings.winners(state.rank_keys(), forfeited)


def result_places(state: State, forfeited: Collection[int]) -> list[int]:
    """Each seat's place in a game that finished at `state` (services/common/standings.py): the engine's order,
    tie-breaks included, with the forfeited seats last."""
    return standings.places(state.rank_keys(), forfeited)
