"""The bot queue's degradation policy: who goes first, and when levels think less.

**Order.** A decision some human is waiting on (the game has a human seat still playing) is queued at
Celery priority 0; a decision of a game with bots only at priority 9. On the Redis broker kombu keeps one
list per priority step (`BOT_QUEUE` for 0, `BOT_QUEUE` + `\\x06\\x16` + `9` for 9) and a worker's BRPOP
asks the priority-0 list first, so a free worker always takes a human's decision before any bot-only game's.
Workers keep consuming the one queue name, `-Q BOT_QUEUE`.

**Budget.** Every task carries `sent_at` (Unix seconds) in its headers. When the oldest human-waiting task has
been queued longer than `BOT_DEGRADE_AFTER_S`, every level's think budget is multiplied by
`BOT_DEGRADE_AFTER_S / age` (so at twice the threshold a level thinks half as long), never below `mcts-easy`'s
budget (`ai.scaled_budget`). Workers read the age from Redis at most once a second per process; the ops
exporter publishes the same scale as `skyboard_bot_budget_scale` (alert `SkyboardBotBudgetShrunk`).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable

#: Celery priorities of bot decisions (kombu's Redis transport consumes lower numbers first).
HUMAN_PRIORITY = 0
BACKGROUND_PRIORITY = 9
#: kombu's Redis transport separates a queue name from its priority step with this.
KOMBU_PRIORITY_SEP = "\x06\x16"
#: Header set by the dispatcher: when the task was queued (Unix seconds).
SENT_AT = "sent_at"


def background_list(queue: str) -> str:
    """The Redis list holding `queue`'s bot-only decisions (priority BACKGROUND_PRIORITY)."""
    return f"{queue}{KOMBU_PRIORITY_SEP}{BACKGROUND_PRIORITY}"


def sent_at(raw: bytes | str | None) -> float | None:
    """The `sent_at` header of a queued kombu message (None if absent or unreadable)."""
    if raw is None:
        return None
    try:
        value = json.loads(raw)["headers"][SENT_AT]
    except (ValueError, KeyError, TypeError):
        return None
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def budget_scale(age_s: float, threshold_s: float) -> float:
    """The factor on every level's think budget when the oldest human-waiting task is `age_s` old: 1 up to the
    threshold, then threshold / age (the floor, mcts-easy's budget, is applied per level by ai.scaled_budget)."""
    if threshold_s <= 0 or age_s <= threshold_s:
        return 1.0
    return threshold_s / age_s


class QueueAge:
    """The age of the oldest task in the human-waiting list, read from Redis at most every `ttl_s` seconds."""

    def __init__(self, redis, queue: str, ttl_s: float = 1.0, clock: Callable[[], float] = time.time):
        self.redis = redis
        self.queue = queue
        self.ttl_s = ttl_s
        self.clock = clock
        self._read_at = float("-inf")
        self._sent: float | None = None

    def age(self) -> float:
        now = self.clock()
        if now - self._read_at >= self.ttl_s:
            self._read_at = now
            try:
                self._sent = sent_at(self.redis.lindex(self.queue, -1))  # kombu LPUSHes: the oldest is last
            except Exception:  # the policy must never fail a move: no reading, no shrink
                self._sent = None
        return 0.0 if self._sent is None else max(0.0, now - self._sent)
