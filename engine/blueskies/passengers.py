"""The passenger bag (BS-3) and even distribution over open gates (BS-4).

Pure functions over plain ints and lists so the state can call them on its hot
path; the bag is just (red, green) counts because it has no order (BS-3.1).
"""

from __future__ import annotations

import random


def draw_operation(rng: random.Random, red: int, green: int) -> tuple[int, int, int, int]:
    """One add-passengers operation (BS-3.2, BS-3.4).

    Draws uniformly without replacement until a red cube (or an empty bag);
    `random() * total < green` is a green with probability green / total.
    Returns (reds drawn 0/1, greens drawn, red left, green left); every drawn
    cube is placed at the airport.
    """
    greens = 0
    while True:
        total = red + green
        if total == 0:
            return 0, greens, red, green
        if rng.random() * total < green:
            green -= 1
            greens += 1
        else:
            return 1, greens, red - 1, green


def shares(passengers: int, open_gates: int) -> list[int]:
    """Per-gate passenger counts, left to right: even, ties to the left (BS-4.1)."""
    if open_gates <= 0:
        return []
    q, r = divmod(passengers, open_gates)
    return [q + 1 if i < r else q for i in range(open_gates)]
