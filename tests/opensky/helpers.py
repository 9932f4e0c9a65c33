"""Builders for OpenSky positions used by the rule tests.

They set up a month's board directly (tokens, hubs, callsigns) and then drive
the engine through its public `apply`, so each rule is tested where it acts.
"""

from __future__ import annotations

import random

import engine
from engine.opensky.state import OpenSkyState

GAME = engine.get("opensky")


class FixedDie(random.Random):
    """An RNG whose `choice` returns a fixed value: a loaded price-sensitivity die."""

    def __init__(self, value: int):
        super().__init__(0)
        self.value = value

    def choice(self, seq):  # type: ignore[override]
        assert self.value in seq
        return self.value


def fresh(players: int = 2, map_name: str = "europe", seed: int = 0, callsigns: str = "choose") -> OpenSkyState:
    return GAME.new(players, seed, {"map": map_name, "callsigns": callsigns})  # type: ignore[return-value]


def route(state: OpenSkyState, a: str, b: str) -> int:
    code = "-".join(sorted((a, b)))
    return state.board.route_index[code]


def airport(state: OpenSkyState, code: str) -> int:
    return state.board.airport_index[code]


def pricing_position(
    players: int,
    networks: dict[int, list[tuple[str, str]]],
    market: tuple[str, str],
    *,
    map_name: str = "europe",
    hubs: dict[int, list[str]] | None = None,
    month: int = 1,
) -> OpenSkyState:
    """A month whose O&D is `market`, with the given aircraft and hubs, at the bid phase
    (or wherever the engine goes when nobody is eligible). The O&D airports carry
    Alpha and Bravo; four more callsigns sit on airports away from the networks."""
    state = fresh(players, map_name)
    used = {c for net in networks.values() for r in net for c in r} | set(market)
    spare = [c for c in state.board.codes if c not in used][:4]
    state.callsigns = [airport(state, market[0]), airport(state, market[1])] + [airport(state, c) for c in spare]
    state.cube_owner = [0] * 6  # subsidies already taken: they do not interfere
    state.month = month
    for seat, net in networks.items():
        for a, b in net:
            state.tokens[seat][route(state, a, b)] += 1
            state.on_board[seat] += 1
    for seat, codes in (hubs or {}).items():
        state.hubs[seat] = [airport(state, c) for c in codes]
    state.dice = [0, 1, 2]
    state.phase = "market"
    roller = state.roller
    state.apply(roller, state.legal_actions(roller)[0])
    return state


def play(state: OpenSkyState, seat: int, action_json: dict) -> list:
    return state.apply(seat, GAME.action_from_json(action_json))
