"""Shared parameters of the adapter suites: every title at every player count, and at its smallest and largest."""

from __future__ import annotations

import engine

GAMES = engine.games()
EVERY_COUNT = [(n, p) for n in GAMES for p in range(engine.get(n).min_players, engine.get(n).max_players + 1)]
EXTREMES = [(n, p) for n in GAMES for p in sorted({engine.get(n).min_players, engine.get(n).max_players})]
#: Options off their defaults, at one player count each (the other board, random callsigns, a fixed first player)
WITH_OPTIONS = [("opensky", 4, {"map": "north_america", "callsigns": "random"}), ("blueskies", 3, {"first_player": 2})]
