"""Itineraries (OS-9): simple paths through a player's own flights, and table validity."""

from __future__ import annotations

import itertools
from collections.abc import Sequence

from engine.opensky.board import Board

Path = tuple[int, ...]  # airport indices, origin first


def player_itineraries(
    board: Board, tokens: Sequence[int], origin: int, destination: int, hubs: Sequence[int] | None
) -> list[Path]:
    """Every regionally legal itinerary of one player (OS-9.2, OS-9.3).

    `tokens` counts the player's aircraft per route. With `hubs` given (Europe,
    OS-20.4/20.5) a path may connect only at the player's own hubs; with None
    (North America) any simple path counts. Sorted by (stops, path).
    """
    adj = board.adj
    if not any(tokens[r] for _, r in adj[origin]) or not any(tokens[r] for _, r in adj[destination]):
        return []  # the network does not touch both ends: the common case, answered fast
    found: list[Path] = []
    path = [origin]

    def walk(at: int) -> None:
        for nxt, r in adj[at]:
            if not tokens[r] or nxt in path:
                continue
            if nxt == destination:
                found.append((*path, nxt))
            elif hubs is None or nxt in hubs:
                path.append(nxt)
                walk(nxt)
                path.pop()

    walk(origin)
    found.sort(key=lambda p: (len(p), p))
    return found


def valid_itineraries(per_seat: Sequence[list[Path] | None]) -> list[list[Path]]:
    """Apply the table-wide validity test OS-9.4 to each seat's legal itineraries.

    `per_seat[s]` is None for a seat without a fare card: its itineraries do not
    count (OS-9.5) and it gets none.
    """
    lengths = [len(p) for paths in per_seat if paths for p in paths]
    if not lengths:
        return [[] for _ in per_seat]
    k_star = min(lengths) - 1
    out: list[list[Path]] = []
    for paths in per_seat:
        if not paths:
            out.append([])
        elif k_star <= 1:
            out.append([p for p in paths if len(p) <= 3])
        else:
            out.append([p for p in paths if len(p) - 1 == k_star])
    return out


def path_routes(board: Board, path: Path) -> list[int]:
    """Route indices flown by an itinerary, one per flight."""
    return [board.route_between(a, b) for a, b in itertools.pairwise(path)]  # type: ignore[misc]
