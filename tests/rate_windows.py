"""A fresh rate-limit window for a test that counts calls against one.

The limits count in fixed windows aligned on multiples of their length (services/accounts/rate_limits.py), the
same on the gateway and on the game-state service's public port. A test that expects the (N+1)th call to be
refused must make its N+1 calls inside one window: a boundary between them gives the later calls a fresh budget
and the refusal never comes, whatever the window's length. So such a test waits, when the current window is
nearly over, for the next one to begin; then its calls fall in one window unless the test runs longer than
`room_s`.
"""

from __future__ import annotations

import time

#: The window of the tests that count: an hour, so that `fresh_window` seldom waits (`room_s` of it, 1.7% of runs).
HOUR = 3600


def fresh_window(window_s: int = HOUR, room_s: float = 60.0) -> None:
    """Return once at least `room_s` of the current `window_s` window is left (sleeping into the next window if
    not). Call it right before the calls that must share one window."""
    if room_s >= window_s:
        raise ValueError(f"room_s ({room_s}) must be shorter than the window ({window_s} s)")
    left = window_s - time.time() % window_s
    if left < room_s:
        time.sleep(left + 0.05)
