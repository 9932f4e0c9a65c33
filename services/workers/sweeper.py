"""Re-queue bot decisions that have waited too long (a worker died mid-thought, a message was lost).

A bot seat's decision is pending since the game's last commit (`updated_ms`).
Once it has waited longer than the seat level's think budget plus a margin,
`skyboard.bot_move(game, seat, version)` is queued again. A marker key
(SET NX with the same period as TTL) makes every worker's sweeper agree, so a
stalled decision is re-queued at most once per period however many workers
run; a re-queued task that turns out not to be needed exits as stale or
duplicate (see move.py).
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Callable

from services.gamestate.keys import Keys
from services.workers import metrics
from services.workers.config import level_budget_seconds

log = logging.getLogger(__name__)

Send = Callable[[str, int, int], None]


def find_stalled(redis, prefix: str, now_ms: int, margin_s: float) -> list[tuple[str, int, int, float]]:
    """(game id, seat, version, wait period s) of bot decisions pending longer than budget + margin."""
    keys = Keys(prefix)
    ids = redis.zrange(keys.active, 0, -1)
    if not ids:
        return []
    pipe = redis.pipeline(transaction=False)
    for gid in ids:
        pipe.hmget(keys.meta(gid), "status", "version", "to_act", "bots", "updated_ms")
    stalled = []
    for gid, (status, version, to_act, bots, updated) in zip(ids, pipe.execute()):
        if status != "active" or version is None or not bots or not to_act or updated is None:
            continue
        levels = json.loads(bots)
        for seat in json.loads(to_act):
            level = levels.get(str(seat))
            if level is None:
                continue
            period = level_budget_seconds(level) + margin_s
            if now_ms - int(updated) > period * 1000:
                stalled.append((gid, int(seat), int(version), period))
    return stalled


def requeue_stalled(redis, prefix: str, send: Send, margin_s: float, now_ms: int | None = None) -> list:
    """Queue stalled decisions again, each at most once per period across all sweepers."""
    now_ms = int(time.time() * 1000) if now_ms is None else now_ms
    done = []
    for gid, seat, version, period in find_stalled(redis, prefix, now_ms, margin_s):
        marker = f"{prefix}game:{{{gid}}}:bot-requeued:{seat}:{version}"
        if redis.set(marker, now_ms, nx=True, px=max(1, int(period * 1000))):
            send(gid, seat, version)
            metrics.REQUEUED.inc()
            log.warning("re-queued bot move %s seat %s version %s", gid, seat, version)
            done.append((gid, seat, version))
    return done


def start_sweeper_thread(redis, prefix: str, send: Send, margin_s: float, interval_s: float) -> threading.Event:
    """Run requeue_stalled every interval_s in a daemon thread; set the returned event to stop it."""
    stop = threading.Event()

    def loop() -> None:
        while not stop.wait(interval_s):
            try:
                requeue_stalled(redis, prefix, send, margin_s)
            except Exception:  # keep sweeping: a Redis hiccup must not end the loop
                log.exception("bot re-queue sweep failed")

    threading.Thread(target=loop, name="bot-requeue-sweeper", daemon=True).start()
    return stop
