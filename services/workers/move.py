"""One bot decision: load, check the version, think, submit idempotently.

Kept free of Celery so that it can be tested and reused; tasks.py wraps it.
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import random
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import grpc

import ai
from engine.core import Game
from services.common.bot_policy import QueueAge, budget_scale
from services.gamestate.client import GameServiceError
from services.gamestate.client_sync import AdminClient
from services.gamestate.keys import Keys
from services.workers import metrics
from services.workers.bot_cache import BotCache
from services.workers.loader import load_game_sync

log = logging.getLogger(__name__)


def idempotency_key(game_id: str, seat: int, version: int) -> str:
    """The key of the one submission a bot may make for (game, seat, version)."""
    return f"bot:{game_id}:{seat}:{version}"


def decision_seed(bot_key: str, seat: int, version: int) -> int:
    """The bot's RNG seed, keyed by the game's secret `bot_key`, so that no opponent can recompute it (a seed
    made of public values let opponents replay a bot's sealed bids before bidding). A redelivered task still
    replays the same reasoning (iteration budgets aside, and a subtree kept by another process's bot).
    A game created before bot keys existed gets fresh randomness instead."""
    if not bot_key:
        return secrets.randbits(64)
    mac = hmac.new(bot_key.encode(), f"{seat}:{version}".encode(), hashlib.sha256).digest()
    return int.from_bytes(mac[:8], "big")


def action_kind(action: dict | None) -> str:
    """What a log line may say of an action: its type, never its content (a sealed bid's fare, a discard)."""
    kind = action.get("type") if isinstance(action, dict) else None
    return kind if isinstance(kind, str) else "-"


@dataclass(slots=True)
class MoveResult:
    outcome: str
    action: dict | None = None
    seconds: float = 0.0
    iterations: int = 0
    #: Visits the search started from, kept from the seat's previous decision (tree reuse).
    reused_visits: float = 0.0
    #: Seconds from the decision becoming pending to this worker starting on it.
    waited: float = 0.0
    #: The factor the degradation policy put on the level's budget (1: none).
    scale: float = 1.0


@dataclass(slots=True)
class Mover:
    """What a worker needs to play bot moves: Redis (sync) and the internal service client (GameAdmin, which
    carries the service credential)."""

    redis: object
    prefix: str
    admin: AdminClient
    get_game: Callable[[str], Game] | None = None
    budget: ai.Budget | None = None  # overrides the level's budget (tests, quick runs)
    bots: BotCache = field(default_factory=BotCache)  # kept between a seat's decisions (tree reuse)
    #: The degradation policy (services/common/bot_policy.py): the human-waiting queue's age and the threshold above
    #: which levels think less (0 or no queue_age: never).
    queue_age: QueueAge | None = None
    degrade_after_s: float = 0.0

    def play(self, game_id: str, seat: int, version: int) -> MoveResult:
        """Play bot seat `seat` of `game_id` if the game is still at `version`; never acts twice."""
        current = self.redis.hget(Keys(self.prefix).meta(game_id), "version")
        if current is None:
            return self._done("unknown_game")
        if int(current) != version:  # checked before loading anything: a stale task costs one HGET
            return self._done("stale")
        try:
            loaded = load_game_sync(self.redis, self.prefix, game_id, self.get_game)
        except LookupError:
            return self._done("unknown_game")
        meta, state = loaded.meta, loaded.state
        if loaded.version != version:
            return self._done("stale")
        if state.is_over() or meta.status != "active":  # finished, or aborted (its state is not over)
            return self._done("finished")
        level = meta.bots.get(seat)
        if level is None:
            return self._done("not_a_bot")
        level = ai.played_as(level, meta.game)  # a game may offer fewer strengths than levels (ai.games)
        if not state.legal_actions(seat):
            return self._done("not_to_act")
        waited = max(0.0, time.time() - meta.updated_ms / 1000)
        metrics.QUEUE_WAIT.labels(meta.game).observe(waited)
        budget, scale = self._budget(meta.game, level)
        bot = self.bots.take(game_id, seat, level)
        start = time.perf_counter()
        action = bot.choose(state, seat, random.Random(decision_seed(meta.bot_key, seat, version)), budget)
        seconds = time.perf_counter() - start
        self.bots.put(game_id, seat, level, bot)
        reused = bot.stats.extra.get("reused_visits", 0.0)
        metrics.THINK_SECONDS.labels(meta.game, level).observe(seconds)
        metrics.ITERATIONS.labels(meta.game, level).observe(bot.stats.iterations)
        body = action.to_json()
        try:
            reply = self.admin.submit_bot(game_id, seat, body, version, idempotency_key(game_id, seat, version))
        except GameServiceError as exc:
            if exc.reason in ("stale_version", "idempotency_mismatch"):
                # Another delivery of this task (or a turn clock) got there first.
                return self._done("stale", body, seconds, bot.stats.iterations, reused, waited, scale)
            if exc.code == grpc.StatusCode.FAILED_PRECONDITION and exc.reason == "illegal_action":
                metrics.FAILURES.labels("illegal_action").inc()
                log.error("bot %s chose an illegal %s in %s seat %s at version %s [%s]", level, action_kind(body),
                          game_id, seat, version, exc.rule)
            else:
                metrics.FAILURES.labels(exc.reason).inc()
            raise
        outcome = "duplicate" if reply.replayed else "submitted"
        return self._done(outcome, body, seconds, bot.stats.iterations, reused, waited, scale)

    def _budget(self, game: str, level: str) -> tuple[ai.Budget | None, float]:
        """The budget to think with (None: the level's own) and the policy's scale on it."""
        if self.budget is not None or self.queue_age is None or self.degrade_after_s <= 0:
            return self.budget, 1.0
        if ai.default_budget(level) is None:
            return None, 1.0  # random and greedy do not search: nothing to shrink
        scale = budget_scale(self.queue_age.age(), self.degrade_after_s)
        if scale >= 1:
            return None, 1.0
        metrics.DEGRADED.labels(game, level).inc()
        return ai.scaled_budget(level, game, scale), scale

    @staticmethod
    def _done(
        outcome: str, action: dict | None = None, seconds: float = 0.0, iterations: int = 0, reused: float = 0.0,
        waited: float = 0.0, scale: float = 1.0,
    ) -> MoveResult:
        metrics.MOVES.labels(outcome).inc()
        return MoveResult(outcome, action, seconds, iterations, reused, waited, scale)
