"""Verifying a webhook delivery (Standard Webhooks: https://www.standardwebhooks.com), with the standard library only.

    from skyboard_client.webhooks import verify, WebhookVerificationError
    message = verify(secret, request.headers, raw_body)   # raises WebhookVerificationError if it is not ours

The signature is `v1,` + base64(HMAC-SHA256(key, f"{webhook-id}.{webhook-timestamp}.{body}")), the key being the
base64 after `whsec_`; `webhook-signature` may hold several (space-separated: during a secret rotation both the new
and the previous secret sign). A timestamp more than `tolerance_s` from now is refused (replays). Verify the raw
body bytes as received, before parsing them; keep the `webhook-id`s you handled: a retry or a redelivery of the
same event carries the same id.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import time
from collections.abc import Mapping

from skyboard_client.models import WebhookMessage

#: How far a delivery's timestamp may lie from this machine's clock (seconds), as the spec's libraries default.
TOLERANCE_S = 300


class WebhookVerificationError(ValueError):
    """The delivery is not signed by the secret, is too old or too new, or lacks a header."""


def _key(secret: str) -> bytes:
    try:
        return base64.b64decode(secret.removeprefix("whsec_"), validate=True)
    except binascii.Error:
        raise WebhookVerificationError("the secret is not `whsec_` + base64") from None


def sign(secret: str, msg_id: str, timestamp: int, body: bytes) -> str:
    """The `v1,<base64>` signature of one message (what the platform sends; useful for tests)."""
    mac = hmac.new(_key(secret), f"{msg_id}.{timestamp}.".encode() + body, hashlib.sha256).digest()
    return "v1," + base64.b64encode(mac).decode()


def verify(secret: str, headers: Mapping[str, str], body: bytes | str, *, now: float | None = None,
           tolerance_s: int = TOLERANCE_S) -> WebhookMessage:
    """The delivery's message if `secret` signed it within `tolerance_s` of `now`; WebhookVerificationError
    otherwise. `headers`: the request's (names in any case)."""
    lower = {k.lower(): v for k, v in headers.items()}
    raw = body.encode() if isinstance(body, str) else body
    try:
        msg_id, stamp, signatures = lower["webhook-id"], int(lower["webhook-timestamp"]), lower["webhook-signature"]
    except (KeyError, ValueError):
        raise WebhookVerificationError("missing or malformed webhook-id / webhook-timestamp / webhook-signature") \
            from None
    if abs((time.time() if now is None else now) - stamp) > tolerance_s:
        raise WebhookVerificationError("the timestamp is too old or too new")
    expected = sign(secret, msg_id, stamp, raw).encode()
    if not any(hmac.compare_digest(expected, s.encode()) for s in signatures.split() if s.startswith("v1,")):
        raise WebhookVerificationError("no signature matches the secret")
    return WebhookMessage(id=msg_id, **json.loads(raw))
