"""The lookups every request starts with: which game, its metadata, the seat a token speaks for, its state.

Why apart: every kind of change (services/gamestate/pipeline.py) and every read resolves a request the same way,
Redis first and then the SQL archive for games that left it, so one object does it for all of them."""

from __future__ import annotations

import re
import secrets
from typing import Any

import grpc

import engine
from engine.core import Game, State
from services.common import boundedjson
from services.gamestate import errors, tokens
from services.gamestate.archive_reads import ArchivedReads
from services.gamestate.records import Meta
from services.gamestate.store import Store
from services.gamestate.wire import now_ms

GAME_ID_RE = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
MAX_ACTION_BYTES = 64 * 1024


def json_argument(text: str, what: str) -> Any:
    """`text` parsed within services.common.boundedjson's limits (size, depth, 64-bit integers, no lone surrogates,
    no NaN): anything else is INVALID_ARGUMENT, never a RecursionError turned INTERNAL."""
    try:
        return boundedjson.loads(text, max_bytes=MAX_ACTION_BYTES)
    except boundedjson.JsonRefused as exc:
        raise errors.invalid(f"{what}: {exc.message}") from None


class Registry:
    """Which games exist: the engine registry by default (tests may add games)."""

    def __init__(self, extra: dict[str, Game] | None = None):
        self._extra = dict(extra or {})

    def names(self) -> list[str]:
        return sorted({*engine.games(), *self._extra})

    def get(self, name: str) -> Game:
        if name in self._extra:
            return self._extra[name]
        return engine.get(name)


class Lookup:
    """Resolves game names, game ids and seat tokens; refusals are ServiceErrors."""

    def __init__(self, store: Store, registry: Registry):
        self.store = store
        self.registry = registry
        #: the SQL archive, where finished games go once they leave Redis (None: no archive configured)
        self.archive: ArchivedReads | None = None
        #: game id -> game name of recently seen games (metric labels only)
        self.game_names: dict[str, str] = {}

    def game(self, name: str) -> Game:
        try:
            return self.registry.get(name)
        except KeyError:
            raise errors.invalid(f"unknown game {name!r}; known games: {', '.join(self.registry.names())}",
                                 "unknown_game") from None

    async def meta(self, game_id: str) -> Meta:
        if not isinstance(game_id, str) or not GAME_ID_RE.match(game_id):
            raise errors.invalid("game_id must be 1-64 characters of A-Z a-z 0-9 _ -")
        meta = await self.store.meta(game_id)
        if meta is None and self.archive is not None:  # not in Redis: an archived game, perhaps
            meta = await self.archive.meta(game_id)
        if meta is None:
            raise errors.not_found(game_id)
        self.name(meta)
        return meta

    def name(self, meta: Meta) -> None:
        """Remember the game's name for metric labels."""
        if len(self.game_names) > 10_000:
            self.game_names.clear()
        self.game_names[meta.game_id] = meta.game

    def recent_seat(self, game_id: str, token: str, within_s: float) -> tuple[Meta, int] | None:
        """The metadata Redis confirmed less than `within_s` ago and the seat `token` speaks for in it, decided
        without asking Redis (Store.recent_meta); None whenever anything is off (no such cache entry, no token or
        an unknown one, tokens expired): the caller then reads Redis, and so answers what it always did."""
        if not token or within_s <= 0:
            return None
        meta = self.store.recent_meta(game_id, within_s)
        if meta is None or self.tokens_expired(meta):
            return None
        h = tokens.token_hash(token)
        seat = next((s for s, stored in meta.token_hashes.items() if secrets.compare_digest(stored, h)), None)
        if seat is None:
            return None
        self.name(meta)
        return meta, seat

    async def seat(self, meta: Meta, token: str, *, required: bool) -> int | None:
        """The seat `token` speaks for in this game; None for a spectator (if allowed)."""
        if token and self.tokens_expired(meta):
            raise errors.unauthenticated(
                "seat tokens of this game expired SEAT_TOKEN_TTL_AFTER_END_S "
                f"({self.store.token_ttl_after_end_ms / 1000:g} s) after it ended; read it without a token"
            )
        if not token:
            if required:
                raise errors.unauthenticated("a seat token is required")
            return None
        h = tokens.token_hash(token)
        for seat, stored in meta.token_hashes.items():
            if secrets.compare_digest(stored, h):
                return seat
        bucket = tokens.bucket_of_token(token)
        owner = await self.store.token_owner(bucket, h) if bucket is not None else None
        if owner is not None and owner[0] != meta.game_id:
            raise errors.denied("this token belongs to another game")
        raise errors.unauthenticated("unknown or revoked seat token")

    async def writer_seat(self, meta: Meta, token: str) -> int:
        """The seat a write (a move, a resignation, an abort, a take-back) is made for. On an ended game a token that
        no longer works (revoked by its seat's resignation, expired after the end) is refused because the game is
        over (FAILED_PRECONDITION "game_over"), which every seat and spectator may know, rather than as unknown: so
        an API key whose seat resigned a two-player game is told the game is over, as the docs promise.

        A seat that resigned or was abandoned is told the same while the game goes on (three players or more): its
        part of the game is over, whether its token was revoked already (the revocation kept its hash,
        Store.gone_seat) or is about to be."""
        try:
            seat = await self.seat(meta, token, required=True)
        except errors.ServiceError as exc:
            if token and exc.code == grpc.StatusCode.UNAUTHENTICATED:
                if meta.ended:
                    over = "the game was aborted" if meta.status == "aborted" else "the game is over"
                    raise errors.precondition(over, "game_over") from None
                gone = await self.store.gone_seat(meta, tokens.token_hash(token))
                if gone is not None:
                    raise seat_over(meta, gone) from None
            raise
        if seat in meta.forfeited:
            raise seat_over(meta, seat)
        return seat

    def tokens_expired(self, meta: Meta) -> bool:
        """Whether a finished game's seat tokens have expired (its last commit, which finished it, is its end).
        Decided from the metadata alone, so every instance agrees; the token index expires by itself."""
        return meta.ended and now_ms() >= meta.updated_ms + self.store.token_ttl_after_end_ms

    async def state(self, meta: Meta) -> tuple[int, State]:
        """The game's state and its version: from Redis, else from the archive."""
        if not meta.archived:
            try:
                return await self.store.load(meta.game_id, meta)
            except LookupError:
                pass  # archived since its metadata was read, perhaps
        found = await self.archive.state(meta.game_id) if self.archive is not None else None
        if found is None:
            raise errors.not_found(meta.game_id)
        return found


def seat_over(meta: Meta, seat: int) -> errors.ServiceError:
    """The refusal of a write for a seat that resigned or was abandoned: its game is over (FAILED_PRECONDITION
    "game_over", REST 409), though the other seats play on."""
    how = "resigned" if seat in meta.resigned else "was abandoned"
    return errors.precondition(f"seat {seat} {how}: its game is over (a bot plays it out)", "game_over")
