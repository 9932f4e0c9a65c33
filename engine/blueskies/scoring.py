"""End-game scoring (BS-9): region majorities, the unused special bonus, the winner."""

from __future__ import annotations

from engine.blueskies.data import Board
from engine.core import JSON


def region_values(board: Board, players: int, gates: list[list[int]]) -> list[list[int]]:
    """values[region][seat]: sum of airport values over the seat's gates in the region (BS-9.2.1-2)."""
    values = [[0] * players for _ in board.regions]
    for region in board.regions:
        row = values[region.index]
        for a in region.airports:
            v = board.airports[a].value
            for owner in gates[a]:
                if owner >= 0:
                    row[owner] += v
    return values


def places(row: list[int], players: int) -> tuple[list[int], list[int]]:
    """One region's first-place and second-place seats from its values (BS-9.2.4-6)."""
    best = max(row)
    first = [s for s in range(players) if row[s] == best and best > 0]
    second: list[int] = []
    if len(first) == 1 and players > 2:
        rest = [row[s] for s in range(players) if s not in first and row[s] > 0]
        if rest:
            runner = max(rest)
            second = [s for s in range(players) if row[s] == runner and s not in first]
    return first, second


def region_awards(board: Board, players: int, gates: list[list[int]]) -> list[dict[str, JSON]]:
    """Per region: values, first-place seats (bonus each), second-place seats (6 each) (BS-9.2.4-7)."""
    out = []
    for region, row in zip(board.regions, region_values(board, players, gates)):
        first, second = places(row, players)
        out.append(
            {
                "region": region.id,
                "values": list(row),
                "first": first,
                "first_bonus": region.bonus,
                "second": second,
                "second_bonus": board.second_place_bonus,
            }
        )
    return out


def end_gains(board: Board, players: int, gates: list[list[int]], special_used: list[bool]) -> list[int]:
    """Points each seat would gain if the game ended now (BS-9.2, BS-9.3), without `final_scoring`'s
    breakdown: a search asks this at every leaf it values."""
    gains = [0] * players
    second_bonus = board.second_place_bonus
    for region, row in zip(board.regions, region_values(board, players, gates)):
        first, second = places(row, players)
        for s in first:
            gains[s] += region.bonus
        for s in second:
            gains[s] += second_bonus
    for s in range(players):
        if not special_used[s]:
            gains[s] += board.unused_special_bonus
    return gains


def final_scoring(
    board: Board, players: int, gates: list[list[int]], special_used: list[bool]
) -> tuple[list[int], dict[str, JSON]]:
    """Points each seat gains at the end (BS-9.2, BS-9.3) and a JSON breakdown."""
    gains = end_gains(board, players, gates, special_used)
    awards = region_awards(board, players, gates)
    unused = [board.unused_special_bonus if not used else 0 for used in special_used]
    return gains, {"regions": awards, "unused_special": unused, "gains": list(gains)}

