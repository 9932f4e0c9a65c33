"""Risk dice and the first-player die (AE-2.4, AE-2.5, AE-8.13).

A Risk die has faces {skull, 2, 3, 4, 5, 6}; the engine writes a skull as 0 so
a roll's total is simply its sum and its engine failures the count of zeros.
"""

from __future__ import annotations

import random

SKULL = 0


def roll_risk(rng: random.Random) -> list[int]:
    """Three Risk dice; 0 is a skull."""
    out = []
    for _ in range(3):
        r = rng.randrange(6)
        out.append(SKULL if r == 0 else r + 1)
    return out


def roll_first_player_die(rng: random.Random) -> int:
    """An ordinary six-sided die, 1-6 (AE-2.5)."""
    return rng.randrange(6) + 1


def skulls(dice: list[int]) -> int:
    """Engine failures of a kept roll (AE-8.13 step 3)."""
    return dice.count(SKULL)


def shortfall(dice: list[int], threshold: int, bonus: int, pilots: int = 0) -> int:
    """Points missing to reach `threshold` (AE-8.13 step 4-5): 0 if the roll succeeds.

    Total = numeric faces (a skull adds 0) + rival bonus + 3 per Daring Pilot.
    """
    return max(0, threshold - (sum(dice) + bonus + 3 * pilots))


def new_first_player(first: int, die: int, players: int) -> int:
    """AE-6.2: the die passes d seats to the left (clockwise)."""
    return (first + die) % players
