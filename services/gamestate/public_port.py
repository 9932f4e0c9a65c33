"""What the public gRPC listener adds to a call: the caller (a seat token, or an account's API key acting for its
seat), the REST gateway's rate limits and the stream bounds.

Why here and not in the servicer: the internal listener (GameAdmin, and GameService for the gateway, the
matchmaker and the bot workers, which the gateway has already limited per player) serves the same servicer
without them. The limits are the gateway's fixed-window limiter (services/accounts/rate_limits.py) with the
same defaults, keyed by the gRPC peer's address and the caller: a seat token (one the platform never issued, or
revoked, counts as no token), or the account of an API key (docs/decisions/accounts.md), in the service's own Redis
keys. A refusal is RESOURCE_EXHAUSTED with the JSON details every refusal carries.

API keys (docs/decisions/accounts.md): a call may carry `authorization: Bearer <API key>` in its metadata instead of a
seat token; the key is verified and the seat resolved by services/accounts/access.py, the code the REST gateway uses,
against the accounts' SQL and the gateway's Redis (`AccountStore`). The call then runs with the seat's token, so the
service itself keeps checking seat tokens only; a WatchGame opened with a key keeps checking the key and the
account's seat while it lasts (`until_revoked`, services/accounts/revocation.py, as REST's streams do).
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any, TypeVar

import grpc
from redis.asyncio import Redis
from redis.exceptions import RedisError
from sqlalchemy.exc import SQLAlchemyError

from services.accounts import access, revocation
from services.accounts.keys import Keys as GatewayKeys
from services.accounts.keys import token_hash
from services.accounts.rate_limits import Caller, RateLimiter
from services.accounts.repository import AccountRepository
from services.accounts.revocation import KeyHold
from services.common.credentials import bearer_of
from services.common.settings import Settings
from services.common.stream_slots import Slot, StreamSlots, TooManyStreams, holder_of_account, holder_of_token
from services.gamestate import errors, tokens
from services.gamestate.keys import Keys

log = logging.getLogger(__name__)

T = TypeVar("T")

#: The call metadata naming which of its seats an API key acts for, where its account holds several of one game.
SEAT_METADATA = "seat"
#: gRPC status of each refusal of access.SeatRefused (REST: 403, 422, 409).
REFUSAL_CODES = {"not_seated": grpc.StatusCode.PERMISSION_DENIED, "seat_ambiguous": grpc.StatusCode.INVALID_ARGUMENT,
                 "no_seat_credential": grpc.StatusCode.FAILED_PRECONDITION}


def peer_address(peer: str | None) -> str:
    """The client address of a grpc peer string ("ipv4:10.0.0.1:5000", "ipv6:[::1]:5000", "unix:/path")."""
    if not peer:
        return "unknown"
    kind, _, rest = peer.partition(":")
    if kind == "ipv4":
        return rest.rsplit(":", 1)[0]
    if kind == "ipv6":
        return rest.rsplit(":", 1)[0].strip("[]")
    return peer


def seat_choice(metadata: Any) -> int | None:
    """The `seat` metadata of a call (None without one); INVALID_ARGUMENT unless it is a seat number 0-63."""
    for item in metadata or ():
        key, value = (item.key, item.value) if hasattr(item, "key") else item
        if key == SEAT_METADATA:
            text = value.decode() if isinstance(value, bytes) else str(value)
            if not text.strip().isdigit() or not 0 <= int(text) <= 63:
                raise errors.invalid(f"the `seat` metadata must be a seat number (0-63), not {text[:20]!r}")
            return int(text)
    return None


@dataclass
class AccountStore:
    """Where the accounts live (the gateway's): SQL (API keys, hashed) and the gateway's Redis (cached key lookups,
    the seats each account holds with their sealed tokens). `closers`: what the service opened for it alone."""

    redis: Redis
    keys: GatewayKeys
    repo: AccountRepository
    secret: str
    closers: list[Any] = field(default_factory=list)

    async def owner(self, api_key: str) -> str | None:
        return await access.key_owner(self.redis, self.keys, self.repo, api_key)

    async def bot_holder(self, token: str) -> str | None:
        """The bot account holding the seat of `token`, if one does (what its calls are charged to)."""
        return await access.bot_holder(self.redis, self.keys, self.repo, token)

    async def close(self) -> None:
        for close in self.closers:
            await close()


class PublicGate:
    """The public listener's callers and per-caller limits: calls per window (Redis, shared by every instance)
    and open WatchGame streams (this instance)."""

    def __init__(self, redis: Redis, keys: Keys, settings: Settings, accounts: AccountStore | None = None) -> None:
        self.redis = redis
        self.keys = keys
        self.accounts = accounts
        self.limiter = RateLimiter(
            redis, GatewayKeys(settings.key_prefix), settings.rate_limit_ip, settings.rate_limit_token,
            settings.rate_limit_window_s, settings.rate_limit_ip_ceiling, settings.rate_limit_bot_token)
        self.streams = StreamSlots(settings.stream_limit_address, settings.stream_limit_credential, "WatchGame streams")

    async def _known(self, token: str) -> bool:
        """Whether `token` is a seat token the platform issued and has not revoked (its index entry exists):
        a made-up token must not buy its caller a fresh bucket."""
        bucket = tokens.bucket_of_token(token)
        return bucket is not None and bool(await self.redis.exists(self.keys.token(bucket, tokens.token_hash(token))))

    async def _count(self, context: grpc.aio.ServicerContext, caller: Caller | None) -> None:
        verdict = await self.limiter.check_as(peer_address(context.peer()), caller)
        if verdict is not None and verdict.exceeded:
            raise errors.ServiceError(
                grpc.StatusCode.RESOURCE_EXHAUSTED, "rate_limited",
                f"rate limit exceeded: {verdict.limit} calls per {verdict.window_s} s for {verdict.scope}; "
                f"retry after {verdict.reset_s} s", extra={"retry_after_s": verdict.reset_s})

    async def admit(self, context: grpc.aio.ServicerContext, token: str) -> None:
        """Count a seat-token call, in its token's bucket if the token is known (its bot account's, where a bot
        account holds the seat), else in its address's anonymous one; RESOURCE_EXHAUSTED (reason
        `rate_limited`) once the bucket is empty."""
        caller = None
        tell = self.limiter.tells_callers_apart(bot_accounts=self.accounts is not None)
        if token and tell and await self._known(token):  # else no Redis read
            holder = await self.accounts.bot_holder(token) if self.accounts is not None else None
            caller = Caller("bot", holder) if holder is not None else Caller("tok", token_hash(token)[:32])
        await self._count(context, caller)

    async def authorize(self, context: grpc.aio.ServicerContext, request: Any, spectator_ok: bool = False) -> Any:
        """Count the call and answer the request to serve: as it came, or, for a call made with an account's API
        key (metadata `authorization: Bearer sbk_...`), with the token of the account's seat filled in (the seat
        it holds in the game, or the one the `seat` metadata names). Refusals mirror REST's: UNAUTHENTICATED (a
        key that does not work), PERMISSION_DENIED `not_seated`, INVALID_ARGUMENT `seat_ambiguous`,
        FAILED_PRECONDITION `no_seat_credential`. With `spectator_ok` (reads) a key whose account holds no seat, or
        whose seat's token no longer works (resigned, an ended game's expired), reads as a spectator, as on REST."""
        return (await self._authorize(context, request, spectator_ok))[0]

    async def authorize_stream(self, context: grpc.aio.ServicerContext, request: Any) -> tuple[Any, KeyHold | None]:
        """`authorize` of a stream (a read: a spectator's where the key holds no seat), and for an API key's what
        the stream must keep holding (`until_revoked`): the token filled in is the seat's, not the key's."""
        return await self._authorize(context, request, True)

    def until_revoked(self, items: AsyncIterator[T], hold: KeyHold) -> AsyncIterator[T]:
        """`items` until the key of `hold` stops working or its account stops holding the seat (Revoked): the one
        re-check of every stream an API key opens, REST's too (services/accounts/revocation.py)."""
        accounts = self.accounts
        assert accounts is not None  # a hold comes only from a key this port verified against its accounts
        return revocation.until_revoked(items, revocation.checker(accounts.redis, accounts.keys, accounts.repo, hold))

    async def _authorize(self, context: grpc.aio.ServicerContext, request: Any,
                         spectator_ok: bool) -> tuple[Any, KeyHold | None]:
        metadata = context.invocation_metadata()
        presented = bearer_of(metadata)
        token = getattr(request, "token", "")
        if not access.is_api_key(presented) or token:  # a seat token in the request names its seat itself
            await self.admit(context, token)
            return request, None
        api_key = presented or ""
        player_id = await self.accounts.owner(api_key) if self.accounts is not None else None
        await self._count(context, Caller("bot" if access.is_bot_key(api_key) else "acct", player_id)
                          if player_id is not None else None)
        if player_id is None:
            raise errors.ServiceError(grpc.StatusCode.UNAUTHENTICATED, "unauthenticated",
                                      "unknown or revoked API key" if self.accounts is not None else
                                      "this port accepts no API keys (the service has no ACCOUNTS_URL or "
                                      "ARCHIVE_URL); use a seat token")
        if not hasattr(request, "token"):
            return request, None  # a call that needs no seat (the catalog, listings, a log)
        try:
            found = await access.account_seat(self.accounts.redis, self.accounts.keys, self.accounts.secret,
                                              player_id, request.game_id, seat_choice(metadata))
        except access.SeatRefused as exc:
            raise errors.ServiceError(REFUSAL_CODES[exc.reason], exc.reason, exc.message) from None
        if found is None or (spectator_ok and not await self._known(found.token)):
            if spectator_ok:  # no seat, or its token no longer works (resigned, expired): a spectator's read
                return request, KeyHold(api_key, player_id, request.game_id)
            refused = access.not_seated(request.game_id)
            raise errors.ServiceError(REFUSAL_CODES[refused.reason], refused.reason, refused.message)
        acting = type(request)()
        acting.CopyFrom(request)
        acting.token = found.token
        return acting, KeyHold(api_key, player_id, request.game_id, found.seat)

    async def rotated(self, context: grpc.aio.ServicerContext, game_id: str, seat: int, token: str) -> None:
        """A seat token was rotated on this port: made with an API key (in the metadata) whose account holds the
        seat, that account keeps acting for it (its sealed copy replaced); made with the seat token alone, any
        account holding the seat is dropped from it (access.rotated): the seat is the new token's alone."""
        if self.accounts is None:
            return
        presented = bearer_of(context.invocation_metadata())
        caller = None
        if presented is not None and access.is_api_key(presented):
            try:
                caller = await self.accounts.owner(presented)
            except (RedisError, SQLAlchemyError):  # unknown: not the holder, the safe side (the seat is dropped)
                caller = None
        try:
            await access.rotated(self.accounts.redis, self.accounts.keys, self.accounts.secret, game_id, seat, token,
                                 caller)
        except RedisError as exc:  # the rotation happened: its new token must reach the caller whatever this does
            log.warning("the accounts holding a rotated seat token's seat of %s were not updated: %s", game_id,
                        exc.__class__.__name__)

    async def open_stream(self, context: grpc.aio.ServicerContext, asked: str, token: str) -> Slot:
        """A place for one more WatchGame stream; RESOURCE_EXHAUSTED (reason `too_many_streams`) if none. `asked`:
        the request's token as it came, `token`: the one `authorize` answered. As for calls (`authorize`), a stream
        opened with an API key counts against its account (all its keys together), one with a seat token against
        that token."""
        presented = bearer_of(context.invocation_metadata())
        player_id = None
        if not asked and access.is_api_key(presented) and self.accounts is not None:
            player_id = await self.accounts.owner(presented or "")  # the cached lookup `authorize` made
        holder = (holder_of_account(player_id) if player_id is not None
                  else holder_of_token(tokens.token_hash(token)) if token else None)
        try:
            return self.streams.acquire(peer_address(context.peer()), holder)
        except TooManyStreams as exc:
            raise errors.ServiceError(grpc.StatusCode.RESOURCE_EXHAUSTED, "too_many_streams", exc.message) from None

    async def show_bot_accounts(self, view: Any) -> None:
        """A GameView's (or GameSummary's) seats as REST shows them: a seat whose account is a bot account is
        `kind: "bot"` (`access.seat_kind`; the service itself knows only its own bot seats)."""
        if self.accounts is None:
            return
        players = [access.seat_player(s.kind, s.player_id, view.owner) for s in view.seats]
        bots = await access.bot_accounts(self.accounts.repo, [p for p in players if p])
        for seat, player in zip(view.seats, players, strict=True):
            seat.kind = access.seat_kind(seat.kind, player, bots)

    async def close(self) -> None:
        if self.accounts is not None:
            await self.accounts.close()
