"""The account-stream events of one game version (`your_turn`, `game_end`) and their exactly-once publication.

Shared by the turn follower (following.py), which publishes every version it watches, and by the gateway's own
sighting of a game's end (`announce_end`, from `Context.settle_soon`): a game ended through this gateway (a move,
a resignation, an abort, a read) is announced on its accounts' streams and listed as ended at once (issue #37,
read your writes), not when a follower next gets to it. The script (`follow_publish`) publishes a version only
if it is newer than the last one published, so the two never publish one version twice.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Mapping, Sequence
from typing import Any

from redis.asyncio import Redis

from services.accounts.events import PUBLISH_TURNS
from services.accounts.keys import Keys
from services.accounts.seats import mark_ended
from services.common.standings import shown_scores, shown_winners
from services.gamestate.client import GameState
from services.matchmaker.settings import MatchmakerSettings

log = logging.getLogger(__name__)


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


def new_turns(to_act: Sequence[int], before: Sequence[int] | None, actor: int | None) -> list[int]:
    """Seats with a new decision: newly in `to_act`, or the one that just acted and must act again. Without
    `before` (first sighting, or versions were skipped) every seat in `to_act`."""
    if before is None:
        return list(to_act)
    return [s for s in to_act if s not in before or s == actor]


def version_events(game_id: str, seats: Mapping[int, str], status: str, version: int, to_act: list[int],
                   before: list[int] | None, actor: int | None, scores: list[int], winners: list[int],
                   deadlines: Mapping[int, int]) -> list[tuple[str, str, dict[str, Any]]]:
    """(player id, type, data) of one version: `game_end` to every seated account once the game is over, else
    `your_turn` to the owner of each seat with a new decision."""
    if status != "active":  # finished or aborted
        return [(pid, "game_end", {"game_id": game_id, "seat": seat, "status": status,
                                   "scores": shown_scores(status, scores), "winners": shown_winners(status, winners)})
                for seat, pid in sorted(seats.items())]
    return [(seats[seat], "your_turn", {"game_id": game_id, "seat": seat, "version": version,
                                        "deadline": deadlines.get(seat)})
            for seat in new_turns(to_act, before, actor) if seat in seats]


async def publish(redis: Redis, keys: Keys, settings: MatchmakerSettings, game_id: str, version: int,
                  to_act: list[int], events: list[tuple[str, str, dict[str, Any]]]) -> bool:
    """Append `events` as version `version` of `game_id` to each account's stream, unless that account was already
    sent that version (or a newer one): one script per account, in its slot, so exactly-once holds per account
    on Redis Cluster too (issue #40); then the game's follow position."""
    s = settings
    by_account: dict[str, list[str]] = {}
    for pid, kind, data in events:
        by_account.setdefault(pid, []).extend((kind, json.dumps(data, separators=(",", ":"))))
    minid = f"{int((time.time() - s.account_events_keep_s) * 1000)}-0"
    script = PUBLISH_TURNS.register(redis)
    done = await asyncio.gather(*(script(
        keys={"sent": keys.follow_sent(pid, game_id), "stream": keys.account_events(pid)},
        args={"version": version, "minid": minid, "maxlen": s.account_events_maxlen,
              "keep": s.account_events_keep_s, "events": flat},
    ) for pid, flat in by_account.items()))
    async with redis.pipeline(transaction=True) as pipe:
        pipe.hset(keys.follow_pos(game_id), mapping={"v": version, "to_act": json.dumps(to_act)})
        pipe.expire(keys.follow_pos(game_id), s.account_events_keep_s)
        await pipe.execute()
    return any(done)


async def announce_end(redis: Redis, keys: Keys, settings: MatchmakerSettings, g: GameState) -> None:
    """`game_end` on the stream of every account seated in the ended game `g`, and the game listed as ended in
    their games, now (a no-op for a game with no account seats, and for a version already published)."""
    if g.status == "active":
        return
    raw = await redis.hgetall(keys.game_accounts(g.game_id))
    seats = {int(_text(k)): _text(v) for k, v in raw.items()}
    if not seats:
        return
    events = version_events(g.game_id, seats, g.status, g.version, g.to_act, None, None, g.scores, g.winners, {})
    await publish(redis, keys, settings, g.game_id, g.version, g.to_act, events)
    await mark_ended(redis, keys, set(seats.values()), g.game_id, g.status)
