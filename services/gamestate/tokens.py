"""Seat tokens: random secrets for human seats.

Human tokens are returned once at creation and stored only as sha256 hashes
(in the game's metadata and in a global index that tells "unknown token"
apart from "token of another game"). Bot seats have no token at all: the bot
workers act for them through the internal GameAdmin service with the service
credential (services/common/credentials.py), so nothing a client can present speaks
for a bot seat.
"""

from __future__ import annotations

import hashlib
import secrets

HUMAN_PREFIX = "sbt_"


def new_token() -> str:
    return HUMAN_PREFIX + secrets.token_urlsafe(32)


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()
