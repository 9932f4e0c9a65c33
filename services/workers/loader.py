"""The workers' synchronous read of a game straight from Redis (no gRPC): the storage layer's LOAD script and
replay, on a blocking client, so a bot thinks on exactly the state the service holds."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass

from engine.core import Game, State
from services.gamestate.keys import Keys
from services.gamestate.records import Meta
from services.gamestate.replay import from_snapshot, replay_entries
from services.gamestate.store import LOAD, load_keys


@dataclass(slots=True)
class LoadedGame:
    """A game read straight from Redis (for bot workers): metadata and the state at `version`."""

    meta: Meta
    version: int
    state: State


def load_game_sync(
    redis_client, prefix: str, game_id: str, get_game: Callable[[str], Game] | None = None
) -> LoadedGame:
    """Load a game's state at its current version from the snapshot + log tail, without gRPC.

    `redis_client` is a synchronous `redis.Redis` with decode_responses=True.
    Raises LookupError for an unknown game. Bot workers use this, then submit
    through the service with expected_version=version.
    """
    import engine

    get_game = get_game or engine.get
    k = Keys(prefix)
    raw = LOAD.register(redis_client)(keys=load_keys(k, game_id))
    if not raw:
        raise LookupError(f"no game {game_id!r}")
    meta_hash = redis_client.hgetall(k.meta(game_id))
    meta = Meta.from_hash(game_id, meta_hash)
    version, digest, _snap_version, snap_state, *tail = raw
    game = get_game(meta.game)
    state = from_snapshot(game, snap_state, tail)
    if state is None or state.digest() != digest:
        state = replay_entries(
            game.new(meta.players, meta.seed, meta.options),
            game,
            [json.loads(e) for e in redis_client.lrange(k.log(game_id), 0, int(version) - 1)],
        )
    return LoadedGame(meta=meta, version=int(version), state=state)
