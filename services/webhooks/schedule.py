"""When a failed delivery is tried again: exponential backoff with jitter, for up to a day.

The n-th retry waits between half and all of min(5 s * 2^(n-1), 2 h) ("equal jitter": never sooner than half the
step, so a failing endpoint is not hammered, and spread so the deliveries that failed together do not come back
together). After `retry_for_s` (24 h) since the delivery was queued it is given up. Pure functions of the clock
value and a random source the caller passes, so a test sets both."""

from __future__ import annotations

import random

FIRST_S = 5.0
CAP_S = 7200.0


def step_s(attempt: int) -> float:
    """The un-jittered wait after the `attempt`-th failure (1-based)."""
    return min(CAP_S, FIRST_S * 2.0 ** (attempt - 1))


def retry_delay_s(attempt: int, rng: random.Random) -> float:
    """The wait after the `attempt`-th failure: half the step plus a random part of the other half."""
    step = step_s(attempt)
    return step / 2 + rng.random() * step / 2


def next_due_ms(since_ms: int, attempt: int, now_ms: int, retry_for_s: float, rng: random.Random) -> int | None:
    """When to try again after the `attempt`-th failure at `now_ms`; None once that would be past `retry_for_s`
    after `since_ms` (the delivery is given up)."""
    due = now_ms + round(retry_delay_s(attempt, rng) * 1000)
    return None if due > since_ms + retry_for_s * 1000 else due
