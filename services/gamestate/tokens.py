"""Seat tokens: random secrets for human seats, HMAC-derived ones for bot seats.

Human tokens are returned once at creation and stored only as sha256 hashes
(in the game's metadata and in a global index that tells "unknown token"
apart from "token of another game"). Bot-seat tokens are never stored: they
are HMAC(bot_secret, game_id:seat), so a bot worker holding the secret can act
for a bot seat and nobody else can.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets

HUMAN_PREFIX = "sbt_"
BOT_PREFIX = "sbb_"


def new_token() -> str:
    return HUMAN_PREFIX + secrets.token_urlsafe(32)


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def bot_token(secret: str, game_id: str, seat: int) -> str:
    """The token a bot worker presents to act for bot seat `seat` of `game_id`."""
    mac = hmac.new(secret.encode(), f"{game_id}:{seat}".encode(), hashlib.sha256).hexdigest()
    return f"{BOT_PREFIX}{game_id}:{seat}:{mac}"


def parse_bot_token(secret: str, token: str) -> tuple[str, int] | None:
    """(game_id, seat) of a genuine bot token, else None."""
    if not token.startswith(BOT_PREFIX):
        return None
    try:
        game_id, seat_text, _mac = token[len(BOT_PREFIX) :].rsplit(":", 2)
        seat = int(seat_text)
    except ValueError:
        return None
    if not hmac.compare_digest(bot_token(secret, game_id, seat), token):
        return None
    return game_id, seat
