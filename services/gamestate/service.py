"""The game-agnostic game-state service behind the gRPC API: what it is made of, and its reads.

It only calls the engine contract (new/from_json/action_from_json, to_act, legal_actions, apply, view, scores,
winners, default_action, Event). Every refusal raises a ServiceError before anything is written; every change
(move, auto-play, timeout, resign, abort, abandon) goes through one pipeline (services/gamestate/pipeline.py):
validate -> apply -> commit (compare-and-set on the version) -> revoke/publish -> dispatch bots. Each kind of
change lives in the collaborator named after it; this class wires them to one store, registry and dispatcher.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

from engine.core import State
from services.gamestate import errors, tokens
from services.gamestate.bot_dispatch import BotDispatch
from services.gamestate.bots import Dispatcher, bot_levels
from services.gamestate.creation import Creator
from services.gamestate.endings import Endings
from services.gamestate.fanout import GameFanout
from services.gamestate.keys import bucket_of
from services.gamestate.lookup import GAME_ID_RE, Lookup, Registry
from services.gamestate.moves import Moves
from services.gamestate.pipeline import Pipeline
from services.gamestate.quotas import QuotaBook
from services.gamestate.records import Meta
from services.gamestate.store import Store
from services.gamestate.turn_clock import TurnClock
from services.gamestate.watch import Watch

#: Game ids one GetGameSummaries call may ask for (a page of the gateway's listings is at most 100 games).
SUMMARIES_MAX = 100


@dataclass(slots=True)
class ViewData:
    meta: Meta
    version: int
    state: State
    seat: int | None


class GameStateService:
    """Authoritative games in Redis. Any number of instances may share one Redis."""

    def __init__(
        self,
        store: Store,
        registry: Registry,
        dispatcher: Dispatcher,
        *,
        quotas: QuotaBook | None = None,
        allow_anonymous_create: bool = False,
        max_turn_seconds: float = 86_400.0,
        watch_block_ms: int = 1000,
        heartbeat_s: float = 15.0,
        bot_redispatch_s: float = 15.0,
        token_check_ms: int = 500,
        zombie_bot_level: str = "greedy",
        abandon_after_timeouts: int = 3,
        inactive_game_days: float = 0.0,
        cached_read_ms: int = 0,
    ):
        self.store = store
        #: how old a confirmation of the cached metadata a seat's legal actions may be answered from (0: never)
        self.cached_read_s = cached_read_ms / 1000
        self.registry = registry
        self.stopping = asyncio.Event()
        self.lookup = Lookup(store, registry)
        self.bots = BotDispatch(store, dispatcher, bot_redispatch_s)
        self.pipeline = Pipeline(store, self.bots, quotas)
        self.creator = Creator(self.lookup, self.pipeline, self.bots, quotas=quotas,
                               allow_anonymous_create=allow_anonymous_create, max_turn_seconds=max_turn_seconds)
        self.moves = Moves(self.lookup, self.pipeline, self.bots)
        self.endings = Endings(self.lookup, self.pipeline, self.bots, zombie_bot_level=zombie_bot_level,
                               inactive_game_ms=round(inactive_game_days * 86_400_000))
        self.clock = TurnClock(self.pipeline, self.bots, abandon_after_timeouts=abandon_after_timeouts,
                               zombie_bot_level=zombie_bot_level)
        #: one Redis reader per watched game feeds all its watchers here; it reads at least every token check
        #: (a seat's stream re-checks its token at least every `token_check_ms`: a revoked token's stream ends)
        self.fanout = GameFanout(store, min(watch_block_ms, token_check_ms), self.stopping)
        self.watcher = Watch(self.lookup, self.fanout, self.stopping, heartbeat_s)

    # ------------------------------------------------------------------ reads

    def catalog(self) -> tuple[list[dict[str, Any]], tuple[str, ...]]:
        return [self.registry.get(n).describe() for n in self.registry.names()], bot_levels()

    async def get_game(self, game_id: str, token: str) -> ViewData:
        meta = await self.lookup.meta(game_id)
        seat = await self.lookup.seat(meta, token, required=False)
        version, state = await self.lookup.state(meta)
        return ViewData(meta=meta, version=version, state=state, seat=seat)

    async def legal_actions(self, game_id: str, token: str) -> tuple[int, int, list[dict[str, Any]]]:
        """The seat's legal actions at the game's version. Within `cached_read_ms` of Redis confirming this
        instance's cached metadata (a read, its own commit) they are answered from the cached metadata and state
        without a Redis round trip: a move made from them is checked by the commit's compare-and-set, as a
        move decided on the cache is (services/gamestate/moves.py)."""
        recent = self.lookup.recent_seat(game_id, token, self.cached_read_s)
        if recent is not None:
            meta, seat = recent
        else:
            meta = await self.lookup.meta(game_id)
            seat = await self.lookup.seat(meta, token, required=True)
        version, state = await self.lookup.state(meta)
        if meta.ended:  # finished (perhaps by forfeit, before the engine's end) or aborted: nothing is legal
            return version, seat, []
        return version, seat, [a.to_json() for a in state.legal_actions(seat)]

    async def list_games(self, status: str, game: str, limit: int) -> list[Meta]:
        if status not in ("", "active", "finished", "aborted"):
            raise errors.invalid("status must be '', 'active', 'finished' or 'aborted'")
        if game:
            self.lookup.game(game)
        if limit < 0 or limit > 500:
            raise errors.invalid("limit must be between 0 and 500")
        found = await self.store.list_games(status, game, limit or 50)
        archive = self.lookup.archive
        if archive is not None and status in ("", "finished"):
            found = _merge_newest(found, await archive.recent(game, limit or 50), limit or 50)
        return found

    async def summaries(self, game_ids: list[str]) -> list[Meta]:
        """The metadata of the known games of `game_ids` (at most SUMMARIES_MAX), in the request's order: one Redis
        round trip, and one archive query for those not in Redis."""
        if len(game_ids) > SUMMARIES_MAX:
            raise errors.invalid(f"at most {SUMMARIES_MAX} game ids per call")
        for game_id in game_ids:
            if not GAME_ID_RE.match(game_id):
                raise errors.invalid("game_ids: each 1-64 characters of A-Z a-z 0-9 _ -")
        found = await self.store.metas(game_ids)
        missing = [gid for gid in dict.fromkeys(game_ids) if gid not in found]
        if missing and self.lookup.archive is not None:
            found.update(await self.lookup.archive.metas(missing))
        return [found[gid] for gid in game_ids if gid in found]

    async def get_log(self, game_id: str) -> tuple[Meta, list[dict[str, Any]]]:
        meta = await self.lookup.meta(game_id)
        if not meta.ended:
            raise errors.precondition("the log of a game is published once it has ended", "game_active")
        entries = [] if meta.archived else await self.store.log(game_id)
        archive = self.lookup.archive
        if len(entries) != meta.version and archive is not None:  # archived (even while being read)
            entries = await archive.log(game_id) or entries
        return meta, entries

    # ------------------------------------------------------------------ seat tokens

    async def rotate_token(self, game_id: str, token: str) -> tuple[int, str]:
        """A new token for the token's seat; the old one stops working (its watch streams end)."""
        meta = await self.lookup.meta(game_id)
        seat = await self.lookup.seat(meta, token, required=True)
        if seat in meta.bots:
            raise errors.invalid("this seat is played by a bot; it has no token to rotate")
        new = tokens.new_token(bucket_of(game_id))
        if not await self.store.set_token(game_id, seat, tokens.token_hash(token), tokens.token_hash(new)):
            raise errors.unauthenticated("unknown or revoked seat token")
        return seat, new


def _merge_newest(hot: list[Meta], archived: list[Meta], limit: int) -> list[Meta]:
    """Redis's games and the archive's, newest created first, each game once (Redis's copy if both)."""
    seen = {m.game_id for m in hot}
    merged = hot + [m for m in archived if m.game_id not in seen]
    merged.sort(key=lambda m: m.created_ms, reverse=True)
    return merged[:limit]
