"""Seat tokens sealed inside matchmaking tickets: AES-256-GCM (the `cryptography` library).

Why: a matched ticket carries its seat token from the matchmaker to the player's next poll through Redis,
and nothing in Redis may reveal it meanwhile (dumps, replicas, every other client of that Redis). The key
is derived (HKDF-SHA256) from the service credential, SERVICE_SECRET, which the gateway and the matchmaker
already share and Redis never sees; the ticket id is bound in as associated data, so a sealed token copied
into another ticket does not open.
"""

from __future__ import annotations

import base64
import binascii
import functools
import secrets

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

#: Version tag of the format: "s2." + base64url(nonce | ciphertext and tag).
PREFIX = "s2."
NONCE_BYTES = 12
#: The key derivation's label of the seat tokens' seal; another use of the same sealing (webhook secrets at rest,
#: under their own server key) passes its own `purpose`, so no two uses ever share a derived key.
TOKENS = b"skyboard ticket seal v2"


@functools.lru_cache(maxsize=8)
def _cipher(secret: str, purpose: bytes = TOKENS) -> AESGCM:
    """The AEAD for `secret` and `purpose`: its own key, independent of every other use of the secret."""
    key = HKDF(algorithm=hashes.SHA256(), length=32, salt=None, info=purpose).derive(secret.encode())
    return AESGCM(key)


def seal(secret: str, ticket_id: str, token: str, purpose: bytes = TOKENS) -> str:
    """`token` encrypted and authenticated for `ticket_id` (a fresh random nonce each call)."""
    nonce = secrets.token_bytes(NONCE_BYTES)
    body = nonce + _cipher(secret, purpose).encrypt(nonce, token.encode(), ticket_id.encode())
    return PREFIX + base64.urlsafe_b64encode(body).decode().rstrip("=")


def unseal(secret: str, ticket_id: str, sealed: str, purpose: bytes = TOKENS) -> str | None:
    """The token `seal` sealed for `ticket_id` with `secret`; None if anything differs (secret, ticket, text)."""
    if not sealed.startswith(PREFIX):
        return None
    text = sealed[len(PREFIX) :]
    try:
        raw = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
        return _cipher(secret, purpose).decrypt(raw[:NONCE_BYTES], raw[NONCE_BYTES:], ticket_id.encode()).decode()
    except (ValueError, binascii.Error, InvalidTag, UnicodeDecodeError):
        return None
