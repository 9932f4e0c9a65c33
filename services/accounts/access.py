"""The account acts for its seats (docs/decisions/accounts.md): verify an API key and resolve the seat it acts for, in
ONE place that every public entry uses (the REST gateway, services/gateway/domain/seat_access.py, and the game-state
service's public gRPC port, services/gamestate/public_port.py). Each entry only maps `SeatRefused` to its own wire form
(an HTTP status, a gRPC status), so the rules and the error reasons cannot drift apart.

Why the seat token underneath: the game-state service keeps checking one seat token per seat; the account's key
is turned into the token the platform keeps sealed for the account's seat (services/accounts/seats.py), never
stored in clear. Key verification is the gateway's: SHA-256 of the key looked up in SQL (the system of record),
cached in Redis for at most `CACHE_MS` and never beyond a rotated key's grace; a revoked key is refused.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterable
from dataclasses import dataclass

from redis.asyncio import Redis
from sqlalchemy.exc import SQLAlchemyError

from services.accounts import seats
from services.accounts.keys import Keys, token_hash
from services.accounts.repository import AccountRepository

log = logging.getLogger(__name__)

HUMAN_KEY_PREFIX = "sbk_"
BOT_KEY_PREFIX = "sbk_bot_"
#: Longest life of a cached positive API-key lookup.
CACHE_MS = 30_000
#: What a cache entry holds for a key that no longer works (written by a rotation with no grace, or a failed lookup).
REVOKED = "-"


def now_ms() -> int:
    return int(time.time() * 1000)


def cache_ttl_ms(expires_ms: int | None, now: int) -> int:
    """How long a lookup of a key expiring at `expires_ms` (None: the current key) may be cached from `now`."""
    return CACHE_MS if expires_ms is None else min(CACHE_MS, expires_ms - now)


def is_api_key(credential: str | None) -> bool:
    """An account's API key (human or bot), as opposed to a seat token (which names its seat itself)."""
    return credential is not None and credential.startswith(HUMAN_KEY_PREFIX)


def is_bot_key(secret: str) -> bool:
    return secret.startswith(BOT_KEY_PREFIX)


def _text(value: bytes | str | None) -> str | None:
    return value.decode() if isinstance(value, bytes) else value


async def key_owner(redis: Redis, keys: Keys, repo: AccountRepository, api_key: str) -> str | None:
    """The player id owning `api_key`, or None (unknown, expired or revoked): the cache, else SQL (then cached,
    TTL bounded by the key's grace expiry; `SET NX`, so a lookup that read SQL before a rotation cannot overwrite
    what the rotation wrote)."""
    key_hash = token_hash(api_key)
    cache = keys.api_key_cache(key_hash)
    cached = _text(await redis.get(cache))
    if cached is not None:
        return None if cached == REVOKED else cached
    now = now_ms()
    found = await repo.key_owner(key_hash, now)
    if found is None:
        # remembered as not working for a while: made-up keys (the rate limiters check every one) must not each
        # cost a SQL query. Safe: a key is in SQL before it is ever shown, so no lookup precedes it.
        await redis.set(cache, REVOKED, px=CACHE_MS, nx=True)
        return None
    player_id, expires_ms = found
    ttl = cache_ttl_ms(expires_ms, now)
    if ttl > 0:
        await redis.set(cache, player_id, px=ttl, nx=True)
    return player_id


class SeatRefused(Exception):
    """The account's key cannot act for a seat of the game. `reason`: `not_seated` (holds no such seat),
    `seat_ambiguous` (holds several, named none), `no_seat_credential` (the platform keeps no token for it)."""

    def __init__(self, reason: str, message: str):
        super().__init__(message)
        self.reason = reason
        self.message = message


@dataclass(frozen=True, slots=True)
class AccountSeat:
    """The seat an account acts for and the seat token to call the game-state service with (never logged)."""

    player_id: str
    seat: int
    token: str


async def account_seat(redis: Redis, keys: Keys, secret: str, player_id: str, game_id: str,
                       seat: int | None) -> AccountSeat | None:
    """The account's seat of `game_id` (None if it holds none): the one it holds, or `seat` where it holds several;
    SeatRefused otherwise."""
    held = await seats.held(redis, keys, player_id, game_id)
    if held is None:
        return None
    if seat is None:
        if len(held.seats) > 1:
            raise SeatRefused("seat_ambiguous", f"this account holds seats {held.seats} of game {game_id}: name one "
                                                "(REST: ?seat=N or the `seat` field; gRPC: `seat` call metadata)")
        seat = held.seats[0]
    elif seat not in held.seats:
        raise SeatRefused("not_seated", f"this account does not hold seat {seat} of game {game_id} (it holds "
                                        f"{held.seats})")
    sealed = held.sealed.get(seat)
    token = seats.unseal_seat(secret, player_id, game_id, seat, sealed) if sealed and secret else None
    if token is None:
        raise SeatRefused("no_seat_credential", f"the platform keeps no credential for seat {seat} of game "
                                                f"{game_id}; use the seat token")
    return AccountSeat(player_id, seat, token)


def not_seated(game_id: str) -> SeatRefused:
    """The refusal of a seat call whose account holds no seat in the game."""
    return SeatRefused("not_seated", f"this account holds no seat in game {game_id}")


async def rotated(redis: Redis, keys: Keys, secret: str, game_id: str, seat: int, token: str,
                  caller: str | None) -> bool:
    """A seat's token was rotated, by any route. The seat is now whoever holds the new token's: the account of
    `caller` (whose API key made the rotation; None: it was made with the seat token alone) keeps acting for it,
    its kept credential the new token (True); any other account holding the seat is dropped from it
    (`seats.release`), so its key no longer reads or acts for the seat and its open streams of the seat end
    (services/accounts/revocation.py). A guest rotating a delegated seat's token makes the seat its own."""
    player_id = _text(await redis.hget(keys.game_accounts(game_id), str(seat)))
    if player_id is None:
        return False
    if player_id == caller:
        return await seats.keep_token(redis, keys, secret, player_id, game_id, seat, token)
    await seats.release(redis, keys, player_id, game_id, seat)
    return False


#: Account kinds seen by this process (a kind never changes once an account exists), bounded.
_KINDS: dict[str, str] = {}
#: Bot holders of seat tokens seen by this process, by token hash ("" = none). Safe to keep: a token's holder is
#: written before the token is ever handed out (at seating, at rotation) and never changes. Bounded.
_HOLDERS: dict[str, str] = {}
_CACHE_MAX = 100_000


def _remember(cache: dict[str, str], key: str, value: str) -> None:
    if len(cache) >= _CACHE_MAX:
        cache.clear()
    cache[key] = value


async def bot_holder(redis: Redis, keys: Keys, repo: AccountRepository, token: str) -> str | None:
    """The bot account holding the seat of seat token `token`, or None (a guest's, a human's or an unknown
    token): a bot account's play counts against the bot budget whichever credential it plays with
    (docs/decisions/accounts.md). At most one Redis GET per token and one SQL read per account per process (both answers
    never change)."""
    h = token_hash(token)
    holder = _HOLDERS.get(h)
    if holder is None:
        player_id = _text(await redis.get(keys.seat_holder(h)))
        holder = ""
        if player_id is not None:
            holder = player_id if await account_kind(repo, player_id) == "bot" else ""
        _remember(_HOLDERS, h, holder)
    return holder or None


async def account_kind(repo: AccountRepository, player_id: str) -> str:
    """"bot" or "human" (also for an id no account has): one SQL read per account per process, as a kind never
    changes once the account exists."""
    kind = _KINDS.get(player_id)
    if kind is None:
        record = await repo.player(player_id)
        kind = record.kind if record is not None else "human"
        _remember(_KINDS, player_id, kind)
    return kind


async def bot_accounts(repo: AccountRepository, player_ids: Iterable[str]) -> frozenset[str]:
    """Which of `player_ids` are bot accounts: their seats show `kind: "bot"` (`seat_kind`). A game read must not
    fail for it: while the accounts' database does not answer, an account not yet seen reads as a person's."""
    bots = set()
    for player_id in {p for p in player_ids if p}:
        try:
            kind = await account_kind(repo, player_id)
        except (SQLAlchemyError, OSError) as exc:
            log.warning("the kind of a seated account is unknown for now: %s", exc.__class__.__name__)
            continue
        if kind == "bot":
            bots.add(player_id)
    return frozenset(bots)


def seat_player(kind: str, seated: str | None, owner: str | None) -> str | None:
    """The account a seat names (REST `player_id`): the player the game seated there (matched and challenge games),
    else the creating owner of a human seat, else None."""
    if seated:
        return seated
    return owner if kind == "human" and owner else None


def seat_kind(kind: str, player_id: str | None, bots: frozenset[str]) -> str:
    """What a seat's `kind` says, on REST and gRPC alike: who plays it. The game-state service knows its own bot
    seats ("bot") and calls every other seat "human"; a seat whose player is a bot account is a program's, so
    "bot" too (its `player_id` names the account; `bot_level` stays the platform's bots' alone)."""
    return "bot" if kind == "human" and player_id in bots else kind
