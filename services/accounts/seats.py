"""Which account holds which seat of a new game: written by whoever seats accounts (a challenge, the matchmaker).

The gateway's turn follower reads these keys to publish `your_turn` and `game_end` to the seated accounts, and
`GET /v1/players/me/games` lists an account's ongoing games from them.
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping
from typing import Any

from services.accounts.keys import Keys


def register_on(pipe: Any, keys: Keys, keep_s: int, game_id: str, game: str, seats: Mapping[int, str]) -> None:
    """Queue on `pipe` the writes that seat the accounts `seats` (seat -> player id) in a new game, list it in
    each account's ongoing games and have the game followed."""
    now = int(time.time() * 1000)
    pipe.hset(keys.game_accounts(game_id), mapping={str(s): pid for s, pid in seats.items()})
    pipe.expire(keys.game_accounts(game_id), keep_s)
    for seat, pid in seats.items():
        pipe.hset(keys.account_games(pid), game_id,
                  json.dumps({"seat": seat, "game": game, "since_ms": now}, separators=(",", ":")))
    pipe.zadd(keys.followed(), {game_id: now})
