"""OpenSky (2-4 players, Europe and North America boards), per the rules reference docs/rules/opensky.md.

Spec seats are 1-based (seat 1 = the youngest player); engine seats are 0-based:
spec seat k is engine seat k-1.
"""

from engine.opensky.game import OpenSkyGame

GAME = OpenSkyGame()

__all__ = ["GAME", "OpenSkyGame"]
