"""OpenSky constants (OS-2, OS-5, OS-23.1)."""

from __future__ import annotations

FARES = (200, 250, 300, 400, 500)  # OS-2.2(b): two of each per player
LEASE_COST = 200  # OS-17.2
CALLSIGNS = ("Alpha", "Bravo", "Charlie", "Delta", "Echo", "Foxtrot")
MONTHS = ("April", "May", "June", "July", "August", "September", "October",
          "November", "December", "January", "February", "March")
AIRCRAFT = {2: 6, 3: 4, 4: 3}  # OS-2.2(a)
PRICE_DIE = (200, 300, 400, 500, 600, 700)  # OS-2.3
SUBSIDY = 50
ANCILLARY = 100
FARE_INDEX = {v: i for i, v in enumerate(FARES)}
LAST_SEASON1_MONTH = 7  # October
