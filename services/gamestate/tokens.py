"""Seat tokens: random secrets for human seats.

Human tokens are returned once at creation and stored only as sha256 hashes
(in the game's metadata and in an index that tells "unknown token" apart from
"token of another game"). A token names its game's bucket (two hex digits after
the prefix, services/gamestate/keys.py), so its index entry lives in its game's
cluster slot and is written by the game's own scripts (docs/decisions/redis-cluster.md). Bot seats have no token at all:
the bot workers act for them through the internal GameAdmin service with the service
credential (services/common/credentials.py), so nothing a client can present speaks
for a bot seat.
"""

from __future__ import annotations

import hashlib
import re
import secrets

HUMAN_PREFIX = "sbt_"


_SECRET_CHARS = 43  # secrets.token_urlsafe(32)
_BUCKETED = re.compile(rf"^{HUMAN_PREFIX}([0-9a-f]{{2}})[A-Za-z0-9_-]{{{_SECRET_CHARS}}}$")


def new_token(bucket: int) -> str:
    """A fresh seat token of a game in `bucket` (256 bits of secret; the bucket is not secret)."""
    return f"{HUMAN_PREFIX}{bucket:02x}{secrets.token_urlsafe(32)}"


def bucket_of_token(token: str) -> int | None:
    """The bucket a token names, or None for a token the platform never issued in this shape."""
    found = _BUCKETED.match(token)
    return int(found.group(1), 16) if found else None


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()
