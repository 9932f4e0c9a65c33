"""Bots kept between decisions, one per (game, seat, level), in each worker process.

Why: a search bot keeps the subtree of its last choice for the seat's next decision (tree reuse,
`ai.ismcts`), which only pays if the same bot object makes that decision. The bot checks that the
seat's view is the one it expected before reusing anything, so a kept bot is never wrong, at worst
useless (another process played the seat in between, or the game moved on).
"""

from __future__ import annotations

import threading
from collections import OrderedDict

import ai
from ai.bot import Bot

#: Bots kept per worker process; the least recently used goes first.
DEFAULT_SIZE = 64


class BotCache:
    """A bounded LRU of bots. A bot is taken out while it thinks and put back after, so two deliveries
    for one seat never share one."""

    def __init__(self, size: int = DEFAULT_SIZE) -> None:
        if size < 0:
            raise ValueError("cache size must be at least 0")
        self._size = size
        self._bots: OrderedDict[tuple[str, int, str], Bot] = OrderedDict()
        self._lock = threading.Lock()

    def take(self, game_id: str, seat: int, level: str) -> Bot:
        """The kept bot of this seat and level, removed from the cache, or a new one."""
        with self._lock:
            bot = self._bots.pop((game_id, seat, level), None)
        return bot if bot is not None else ai.make_bot(level)

    def put(self, game_id: str, seat: int, level: str, bot: Bot) -> None:
        """Keep `bot` for the seat's next decision, dropping the least recently used beyond the size."""
        with self._lock:
            self._bots[(game_id, seat, level)] = bot
            self._bots.move_to_end((game_id, seat, level))
            while len(self._bots) > self._size:
                self._bots.popitem(last=False)

    def __len__(self) -> int:
        return len(self._bots)
