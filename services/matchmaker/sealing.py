"""Seat tokens sealed inside matchmaking tickets: authenticated encryption from the standard library.

Why: a matched ticket carries its seat token from the matchmaker to the player's next poll through Redis,
and nothing in Redis may reveal it meanwhile (dumps, replicas, every other client of that Redis). The
project has no cryptography dependency, so the seal is built from HMAC-SHA256 alone: a key stream from
HMAC in counter mode over a random 16-byte nonce, then encrypt-then-MAC with a second key, with the
ticket id bound in (a sealed token copied into another ticket does not open). Both keys derive from
GATEWAY_TICKET_SECRET, which the gateway and the matchmaker share and Redis never sees.
"""

from __future__ import annotations

import base64
import binascii
import functools
import hashlib
import hmac
import secrets

#: Version tag of the format: "s1." + base64url(nonce | ciphertext | tag).
PREFIX = "s1."
NONCE_BYTES = 16
TAG_BYTES = 32


@functools.lru_cache(maxsize=4)
def _keys(secret: str) -> tuple[bytes, bytes]:
    """(encryption key, authentication key), independent keys derived from the one secret."""
    root = secret.encode()
    return (
        hmac.digest(root, b"skyboard ticket seal: encrypt", hashlib.sha256),
        hmac.digest(root, b"skyboard ticket seal: authenticate", hashlib.sha256),
    )


def _xor_stream(key: bytes, nonce: bytes, data: bytes) -> bytes:
    """`data` XOR the key stream HMAC(key, nonce | counter) (the same call seals and opens)."""
    blocks = b"".join(
        hmac.digest(key, nonce + i.to_bytes(4, "big"), hashlib.sha256) for i in range((len(data) + 31) // 32)
    )
    return (int.from_bytes(data, "big") ^ int.from_bytes(blocks[: len(data)], "big")).to_bytes(len(data), "big")


def _tag(key: bytes, ticket_id: str, body: bytes) -> bytes:
    return hmac.digest(key, ticket_id.encode() + b"\0" + body, hashlib.sha256)


def seal(secret: str, ticket_id: str, token: str) -> str:
    """`token` encrypted and authenticated for `ticket_id` (a fresh nonce each call)."""
    enc, mac = _keys(secret)
    nonce = secrets.token_bytes(NONCE_BYTES)
    body = nonce + _xor_stream(enc, nonce, token.encode())
    return PREFIX + base64.urlsafe_b64encode(body + _tag(mac, ticket_id, body)).decode().rstrip("=")


def unseal(secret: str, ticket_id: str, sealed: str) -> str | None:
    """The token `seal` sealed for `ticket_id` with `secret`; None if anything differs (secret, ticket, text)."""
    if not sealed.startswith(PREFIX):
        return None
    text = sealed[len(PREFIX) :]
    try:
        raw = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    except (ValueError, binascii.Error):
        return None
    if len(raw) < NONCE_BYTES + TAG_BYTES:
        return None
    body, tag = raw[:-TAG_BYTES], raw[-TAG_BYTES:]
    enc, mac = _keys(secret)
    if not hmac.compare_digest(tag, _tag(mac, ticket_id, body)):
        return None
    try:
        return _xor_stream(enc, body[:NONCE_BYTES], body[NONCE_BYTES:]).decode()
    except UnicodeDecodeError:
        return None
