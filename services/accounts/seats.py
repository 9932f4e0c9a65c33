"""Which account holds which seat of a new game: written by whoever seats accounts (a challenge, the matchmaker).

The gateway's turn follower reads these keys to publish `your_turn` and `game_end` to the seated accounts, and
`GET /v1/players/me/games` lists an account's ongoing games from them.
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping

from services.accounts.keys import Keys, bucket_of
from services.common.slot_transactions import SlotTransactions


def register_on(tx: SlotTransactions, keys: Keys, keep_s: int, game_id: str, game: str,
                seats: Mapping[int, str]) -> None:
    """Queue on `tx` the writes that seat the accounts `seats` (seat -> player id) in a new game, list it in
    each account's ongoing games and have the game followed (the game's seats and its followed bucket share a
    slot; each account's list is in the account's)."""
    now = int(time.time() * 1000)
    bucket = bucket_of(game_id)
    pipe = tx.on(f"f:{bucket}")
    pipe.hset(keys.game_accounts(game_id), mapping={str(s): pid for s, pid in seats.items()})
    pipe.expire(keys.game_accounts(game_id), keep_s)
    pipe.zadd(keys.followed(bucket), {game_id: now})
    for seat, pid in seats.items():
        tx.on(keys.account_tag(pid)).hset(
            keys.account_games(pid), game_id, json.dumps({"seat": seat, "game": game, "since_ms": now},
                                                         separators=(",", ":")))
