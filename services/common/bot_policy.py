"""The bot queue's policy: which bot decision goes first, and when levels think less.

Humans should never wait behind bot-only games, nor see their game's next bot decision go to the back of the
queue: three Celery priority tiers (follow-ups 0, first decisions 3, bot-only games 9) and, when the oldest
human-waiting task ages past BOT_DEGRADE_AFTER_S, a shrunken think budget. The tiers, kombu's lists and the
budget rule are described in docs/platform/bots.md ("Queue policy").
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable

#: Celery priorities of bot decisions (kombu's Redis transport consumes lower numbers first): a game's next
#: decision while a human waits, the first decision after a human's move, a decision of a game with bots only.
FOLLOW_UP_PRIORITY = 0
FIRST_PRIORITY = 3
BACKGROUND_PRIORITY = 9
#: kombu's Redis transport: its default priority steps (one list each) and the separator of a queue name from
#: its step in a list's name (kombu/transport/redis.py, PRIORITY_STEPS and Channel.sep; tests check both).
KOMBU_PRIORITY_STEPS = (0, 3, 6, 9)
KOMBU_PRIORITY_SEP = "\x06\x16"
#: Header set by the dispatcher: when the task was queued (Unix seconds).
SENT_AT = "sent_at"


def priority(human: bool, follow_up: bool, follow_ups_first: bool = True) -> int:
    """The Celery priority of a bot decision: FOLLOW_UP_PRIORITY for a follow-up a human waits on (when
    `follow_ups_first`, BOT_FOLLOW_UPS_FIRST), FIRST_PRIORITY for any other human-waiting decision,
    BACKGROUND_PRIORITY in a game of bots only."""
    if not human:
        return BACKGROUND_PRIORITY
    return FOLLOW_UP_PRIORITY if follow_up and follow_ups_first else FIRST_PRIORITY


def priority_list(queue: str, priority: int) -> str:
    """The Redis list kombu puts `queue`'s messages of `priority` in (a step of KOMBU_PRIORITY_STEPS)."""
    if priority not in KOMBU_PRIORITY_STEPS:
        raise ValueError(f"priority {priority} is not one of kombu's steps {KOMBU_PRIORITY_STEPS}")
    return queue if priority == 0 else f"{queue}{KOMBU_PRIORITY_SEP}{priority}"


def human_lists(queue: str) -> tuple[str, str]:
    """The Redis lists holding `queue`'s human-waiting decisions: follow-ups, then first decisions."""
    return priority_list(queue, FOLLOW_UP_PRIORITY), priority_list(queue, FIRST_PRIORITY)


def background_list(queue: str) -> str:
    """The Redis list holding `queue`'s bot-only decisions (priority BACKGROUND_PRIORITY)."""
    return priority_list(queue, BACKGROUND_PRIORITY)


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
    """The age of the oldest human-waiting task (the older of both human tiers' list heads), read from Redis at
    most every `ttl_s` seconds."""

    def __init__(self, redis, queue: str, ttl_s: float = 1.0, clock: Callable[[], float] = time.time):
        self.redis = redis
        self.queue = queue
        self.lists = human_lists(queue)
        self.ttl_s = ttl_s
        self.clock = clock
        self._read_at = float("-inf")
        self._sent: float | None = None

    def age(self) -> float:
        now = self.clock()
        if now - self._read_at >= self.ttl_s:
            self._read_at = now
            try:
                pipe = self.redis.pipeline(transaction=False)
                for name in self.lists:
                    pipe.lindex(name, -1)  # kombu LPUSHes: each list's oldest is last
                sent = [s for s in map(sent_at, pipe.execute()) if s is not None]
                self._sent = min(sent, default=None)
            except Exception:  # the policy must never fail a move: no reading, no shrink
                self._sent = None
        return 0.0 if self._sent is None else max(0.0, now - self._sent)
