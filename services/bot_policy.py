"""The bot queue's policy: who goes first, and when levels think less.

**Order.** Three tiers, as Celery priorities (kombu's Redis transport consumes lower numbers first):

- priority 0, **follow-ups**: a decision some human waits on (the game has a human seat still playing) queued by
  a commit a bot or the platform made, a bot's own move (GameAdmin.SubmitBotAction), the auto-play of a
  handed-over seat or the turn clock's default for a bot seat. The human has already waited on at least one
  decision since their move (Blue Skies purchase turns, Aeroplanes' two bot seats): the game's next decision
  goes ahead of other games' first ones rather than to the back of the queue again.
- priority 3, **first decisions**: a decision a human waits on queued by a human's move (a turn-clock timeout
  of a human seat, a resignation), a game's creation, or a re-dispatch of a stalled decision (the service does
  not keep which tier the lost task had; the re-dispatch waited budget + BOT_REDISPATCH_S already, and a
  still-queued original keeps its own place).
- priority 9: a decision of a game with bots only.

With `BOT_FOLLOW_UPS_FIRST=false` follow-ups are queued as first decisions (priority 3): human-waiting decisions
in one FIFO list ahead of bot-only games, the order before follow-ups had a tier. On the Redis broker kombu keeps
one list per priority step (`PRIORITY_STEPS` [0, 3, 6, 9] in kombu/transport/redis.py; a priority goes to the
step at or below it): `BOT_QUEUE` for 0 and `BOT_QUEUE` + `\\x06\\x16` + the step for the others
(`priority_list`). A worker BRPOPs the lists in step order, so a free worker takes any follow-up before any first
decision and any of those before any bot-only game's. Workers keep consuming the one queue name,
`-Q BOT_QUEUE`. A game's follow-ups stop at its human's next turn, so they cannot starve first decisions unless
they alone exceed the workers' capacity; the oldest first decision then ages, and the budget rule below reads it.

**Budget.** Every task carries `sent_at` (Unix seconds) in its headers. When the oldest human-waiting task (the
oldest of both human tiers' lists, `human_lists`) has been queued longer than `BOT_DEGRADE_AFTER_S`, every
level's think budget is multiplied by `BOT_DEGRADE_AFTER_S / age` (so at twice the threshold a level thinks half
as long), never below `mcts-easy`'s budget (`ai.scaled_budget`). Workers read the age from Redis at most once a
second per process; the ops exporter publishes the same scale as `skyboard_bot_budget_scale` (alert
`SkyboardBotBudgetShrunk`).
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
