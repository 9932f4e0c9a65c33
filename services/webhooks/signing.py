"""Standard Webhooks signatures (https://www.standardwebhooks.com): what every delivery carries, so any verifier
library of the spec checks it.

A secret is `whsec_` + base64 of 32 random bytes; the HMAC key is the decoded bytes. A delivery's headers are
`webhook-id` (the message id, the same on every retry), `webhook-timestamp` (unix seconds of this attempt) and
`webhook-signature`: `v1,` + base64(HMAC-SHA256(key, f"{id}.{timestamp}.{body}")), space-separated when several
secrets sign (the previous one during a rotation's grace).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import secrets
from collections.abc import Iterable, Mapping

PREFIX = "whsec_"
SECRET_BYTES = 32
#: How far a delivery's timestamp may lie from the receiver's clock (the spec's replay window).
TOLERANCE_S = 300


def new_secret() -> str:
    """A fresh signing secret, shown to the account once."""
    return PREFIX + base64.b64encode(secrets.token_bytes(SECRET_BYTES)).decode()


def _key(secret: str) -> bytes:
    text = secret[len(PREFIX):] if secret.startswith(PREFIX) else secret
    return base64.b64decode(text, validate=True)


def sign(secret: str, msg_id: str, timestamp: int, body: bytes) -> str:
    """One `v1,<base64>` signature of the message."""
    mac = hmac.new(_key(secret), f"{msg_id}.{timestamp}.".encode() + body, hashlib.sha256).digest()
    return "v1," + base64.b64encode(mac).decode()


def headers(msg_id: str, timestamp: int, body: bytes, signing: Iterable[str]) -> dict[str, str]:
    """The three Standard Webhooks headers of one attempt, signed by every secret of `signing`."""
    return {"webhook-id": msg_id, "webhook-timestamp": str(timestamp),
            "webhook-signature": " ".join(sign(s, msg_id, timestamp, body) for s in signing)}


def verify(secret: str, sent: Mapping[str, str], body: bytes, now: float, tolerance_s: int = TOLERANCE_S) -> bool:
    """True iff one of the `v1` signatures of `sent` (the headers, lower-case names) is `secret`'s over `body`, and
    the timestamp lies within `tolerance_s` of `now`."""
    try:
        msg_id, stamp = sent["webhook-id"], int(sent["webhook-timestamp"])
        expected = sign(secret, msg_id, stamp, body).encode()
    except (KeyError, ValueError, binascii.Error):
        return False
    if abs(now - stamp) > tolerance_s:
        return False
    return any(hmac.compare_digest(expected, s.encode()) for s in sent.get("webhook-signature", "").split()
               if s.startswith("v1,"))
