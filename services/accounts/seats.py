"""Which account holds which seat of a game, and the seat credential the platform keeps for it
(docs/decisions/accounts.md: the account is the unit).

Written by whoever seats accounts (`POST /v1/games`, a challenge, the matchmaker). Two keys:

- `game_accounts(game_id)`: seat -> player id; the outcomes consumer (services/outcomes/) reads it to publish
  `your_turn` and `game_end` to the seated accounts;
- `account_games(player_id)`: game id -> JSON `{"seat", "seats", "game", "since_ms", "keys", "ended", "ended_ms"}`,
  what `GET /v1/players/me/games` lists and what lets the account's API key act for its seats. `keys` holds each
  seat's token sealed (AES-256-GCM, `sealing.seal`, bound to player, game and seat; never in clear at rest), so
  the gateway can call the game-state service for the account with the seat token that service checks. An
  ended game stays listed (as ended) for `ENDED_KEEP_MS`, then readers drop it.

- `seat_holder(token hash)`: the player holding the seat of a seat token, what the rate limiters charge a call with
  that token to (a bot account's play counts against the bot budget, docs/decisions/accounts.md); replaced on rotation.

A seat's token rotated by anyone but the account holding it (with the seat token: a guest making a delegated seat
its own) takes the seat from the account (`release`): a seat handed to someone else is theirs alone.

Every update of one account's entry touches that account's key alone (single-slot).
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from redis.asyncio import Redis
from redis.exceptions import WatchError

from services.accounts.keys import Keys, bucket_of, token_hash
from services.accounts.sealing import seal, unseal
from services.common.slot_transactions import SlotTransactions

#: How long an ended game stays in its accounts' game lists (read your writes: a finished game is listed as
#: finished at once, and its seats can still be read with the API key for a day).
ENDED_KEEP_MS = 86_400_000


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


def _seat_ad(player_id: str, game_id: str, seat: int) -> str:
    """The associated data of a kept seat token: a sealed token copied to another account, game or seat fails."""
    return f"seat:{player_id}:{game_id}:{seat}"


def seal_seat(secret: str, player_id: str, game_id: str, seat: int, token: str) -> str:
    return seal(secret, _seat_ad(player_id, game_id, seat), token)


def unseal_seat(secret: str, player_id: str, game_id: str, seat: int, sealed: str) -> str | None:
    return unseal(secret, _seat_ad(player_id, game_id, seat), sealed)


@dataclass(frozen=True)
class Held:
    """One game an account holds seats in."""

    game_id: str
    game: str
    seats: list[int]
    since_ms: int
    sealed: dict[int, str] = field(default_factory=dict)
    ended: str | None = None  # "finished" | "aborted" once its end was seen
    ended_ms: int | None = None

    @staticmethod
    def parse(game_id: str, raw: bytes | str) -> Held:
        d = json.loads(_text(raw))
        seats = [int(s) for s in d.get("seats", [d["seat"]])]
        return Held(game_id, d["game"], sorted(seats), int(d["since_ms"]),
                    {int(s): v for s, v in (d.get("keys") or {}).items()}, d.get("ended"), d.get("ended_ms"))

    def to_json(self) -> str:
        return json.dumps({"seat": self.seats[0], "seats": self.seats, "game": self.game, "since_ms": self.since_ms,
                           "keys": {str(s): v for s, v in sorted(self.sealed.items())}, "ended": self.ended,
                           "ended_ms": self.ended_ms}, separators=(",", ":"))


def register_on(tx: SlotTransactions, keys: Keys, keep_s: int, game_id: str, game: str, seats: Mapping[int, str],
                tokens: Mapping[int, str] | None = None, secret: str = "") -> None:
    """Queue on `tx` the writes that seat the accounts `seats` (seat -> player id) in a new game and list it in
    each account's games (the game's seats are in its bucket's slot; each account's list is in the account's).
    With `tokens` (seat -> token) and the service `secret`, each seat's token is kept sealed so the account's API
    key acts for it."""
    now = int(time.time() * 1000)
    pipe = tx.on(f"f:{bucket_of(game_id)}")
    pipe.hset(keys.game_accounts(game_id), mapping={str(s): pid for s, pid in seats.items()})
    pipe.expire(keys.game_accounts(game_id), keep_s)
    by_account: dict[str, list[int]] = {}
    for seat, pid in seats.items():
        by_account.setdefault(pid, []).append(seat)
    for pid, held in by_account.items():
        sealed = {s: seal_seat(secret, pid, game_id, s, tokens[s]) for s in held
                  if secret and tokens and tokens.get(s)}
        for s in held:
            if tokens and tokens.get(s):
                _hold_on(tx, keys, tokens[s], pid, keep_s)
        tx.on(keys.account_tag(pid)).hset(keys.account_games(pid), game_id,
                                          Held(game_id, game, sorted(held), now, sealed).to_json())


def _hold_on(tx: SlotTransactions, keys: Keys, token: str, player_id: str, keep_s: int) -> None:
    """Queue the seat-holder entry of `token` (the rate limiters' lookup: services/accounts/access.py)."""
    h = token_hash(token)
    tx.on(f"h:{h[:8]}").set(keys.seat_holder(h), player_id, ex=keep_s)


async def held(redis: Redis, keys: Keys, player_id: str, game_id: str) -> Held | None:
    """The seats `player_id` holds in `game_id` (None: none)."""
    raw = await redis.hget(keys.account_games(player_id), game_id)
    return Held.parse(game_id, raw) if raw is not None else None


async def held_games(redis: Redis, keys: Keys, player_id: str) -> list[Held]:
    """Every game the account holds seats in, ongoing or ended less than ENDED_KEEP_MS ago (older ones are
    dropped here)."""
    key = keys.account_games(player_id)
    out, stale = [], []
    cutoff = int(time.time() * 1000) - ENDED_KEEP_MS
    for game_id, raw in (await redis.hgetall(key)).items():
        h = Held.parse(_text(game_id), raw)
        if h.ended_ms is not None and h.ended_ms < cutoff:
            stale.append(h.game_id)
        else:
            out.append(h)
    if stale:
        await redis.hdel(key, *stale)
    return out


async def _update(redis: Redis, keys: Keys, player_id: str, game_id: str, change: Any) -> bool:
    """Rewrite one entry with `change(Held) -> Held | None` (None: drop the entry; optimistic, on the account's
    key alone); False if absent."""
    key = keys.account_games(player_id)
    async with redis.pipeline(transaction=True) as pipe:
        while True:
            try:
                await pipe.watch(key)
                raw = await pipe.hget(key, game_id)
                if raw is None:
                    await pipe.reset()
                    return False
                changed = change(Held.parse(game_id, raw))
                pipe.multi()
                if changed is None:
                    pipe.hdel(key, game_id)
                else:
                    pipe.hset(key, game_id, changed.to_json())
                await pipe.execute()
                return True
            except WatchError:
                continue


async def keep_token(redis: Redis, keys: Keys, secret: str, player_id: str, game_id: str, seat: int,
                     token: str) -> bool:
    """Keep `token` (sealed) as the credential of the account's seat `seat` (after a rotation); False if the
    account does not hold that seat."""
    if not secret:
        return False

    def change(h: Held) -> Held:
        return Held(h.game_id, h.game, h.seats, h.since_ms,
                    {**h.sealed, seat: seal_seat(secret, player_id, game_id, seat, token)}, h.ended, h.ended_ms)

    h = await held(redis, keys, player_id, game_id)
    if h is None or seat not in h.seats:
        return False
    if not await _update(redis, keys, player_id, game_id, change):
        return False
    keep_ms = await redis.pttl(keys.game_accounts(game_id))
    await redis.set(keys.seat_holder(token_hash(token)), player_id, px=keep_ms if keep_ms > 0 else ENDED_KEEP_MS)
    return True


async def release(redis: Redis, keys: Keys, player_id: str, game_id: str, seat: int) -> bool:
    """The account no longer holds seat `seat` of `game_id` (someone else rotated its token: the seat is theirs
    alone now): the seat and its kept token leave the account's entry (the entry goes with its last seat), and the
    account leaves the game's seated accounts. False if it did not hold the seat."""

    def change(h: Held) -> Held | None:
        rest = [s for s in h.seats if s != seat]
        if not rest:
            return None
        return Held(h.game_id, h.game, rest, h.since_ms, {s: v for s, v in h.sealed.items() if s != seat}, h.ended,
                    h.ended_ms)

    h = await held(redis, keys, player_id, game_id)
    if h is None or seat not in h.seats:
        return False
    await _update(redis, keys, player_id, game_id, change)  # first: what the key's every call and stream checks
    if _text(await redis.hget(keys.game_accounts(game_id), str(seat)) or "") == player_id:
        await redis.hdel(keys.game_accounts(game_id), str(seat))
    return True


async def forget_tokens(redis: Redis, keys: Keys, player_id: str, game_id: str) -> bool:
    """Drop the seat tokens kept for the account's seats of `game_id`: a deleted account's games stay listed as its
    own (an ended one in its history until the archive takes it) without a credential. False if it holds no seat
    there."""
    return await _update(redis, keys, player_id, game_id, lambda h: Held(h.game_id, h.game, h.seats, h.since_ms, {},
                                                                         h.ended, h.ended_ms))


async def mark_ended(redis: Redis, keys: Keys, player_ids: set[str], game_id: str, status: str,
                     at_ms: int | None = None) -> None:
    """The game ended (at `at_ms`, the commit that ended it; unknown: now): each account lists it as ended (kept
    ENDED_KEEP_MS), no longer among its ongoing ones. A game already listed as ended keeps its first end."""
    now = at_ms or int(time.time() * 1000)
    for pid in player_ids:
        await _update(redis, keys, pid, game_id, lambda h: Held(h.game_id, h.game, h.seats, h.since_ms, h.sealed,
                                                                h.ended or status, h.ended_ms or now))
