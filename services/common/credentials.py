"""The service credential: how the platform's own processes prove themselves to the internal gRPC service.

Bot workers, the REST gateway and the matchmaker call `skyboard.v1.GameAdmin` (owned and batch creation,
bot moves) with `authorization: Bearer <SERVICE_SECRET>` in the call metadata. There is no default secret:
a process that needs one and has none refuses to start (`make run` generates a random one per stack).

Rotation without downtime: set the new secret as `SERVICE_SECRET` and the old one as
`SERVICE_SECRET_PREVIOUS` on the game-state service, with `SERVICE_SECRET_PREVIOUS_UNTIL` (unix seconds)
ending the window; restart the clients with the new secret; the old one is refused once the window ends.
"""

from __future__ import annotations

import hashlib
import hmac
import time
from dataclasses import dataclass

#: The metadata key of the credential (gRPC metadata keys are lower-case).
METADATA_KEY = "authorization"
#: Shorter secrets are refused: 32 characters of `secrets.token_urlsafe` carry about 190 bits.
MIN_SECRET_LENGTH = 32
#: Values that were once published as development defaults: never accepted as a secret.
PUBLISHED_SECRETS = frozenset({"skyboard-dev-bot-secret-change-me"})


class CredentialError(ValueError):
    """A missing or unusable service secret (a startup error, never a per-call one)."""


def check_secret(secret: str | None, variable: str = "SERVICE_SECRET") -> str:
    """`secret` if it is usable, else CredentialError saying what to do."""
    if not secret:
        raise CredentialError(
            f"{variable} is not set: the platform's processes authenticate to each other with it. Generate one "
            "with `python -c 'import secrets; print(secrets.token_urlsafe(32))'` and give every service the same "
            "value (`make run` does this for you)."
        )
    if secret in PUBLISHED_SECRETS:
        raise CredentialError(f"{variable} is a published development value; generate a secret of your own")
    if len(secret) < MIN_SECRET_LENGTH:
        raise CredentialError(f"{variable} must be at least {MIN_SECRET_LENGTH} characters long")
    return secret


def call_metadata(secret: str) -> tuple[tuple[str, str], ...]:
    """The metadata a client attaches to every GameAdmin call."""
    return ((METADATA_KEY, f"Bearer {secret}"),)


def _digest(secret: str) -> bytes:
    return hashlib.sha256(secret.encode()).digest()


@dataclass(frozen=True, slots=True)
class ServiceCredentials:
    """What the game-state service accepts: the current secret, and the previous one until a deadline.

    Only SHA-256 digests are kept in memory, and comparisons are constant-time."""

    current: bytes
    previous: bytes | None = None
    previous_until: float | None = None

    @classmethod
    def from_secrets(
        cls, current: str | None, previous: str | None = None, previous_until: float | None = None
    ) -> ServiceCredentials:
        check_secret(current)
        if previous:
            check_secret(previous, "SERVICE_SECRET_PREVIOUS")
            if previous_until is None:
                raise CredentialError(
                    "SERVICE_SECRET_PREVIOUS needs SERVICE_SECRET_PREVIOUS_UNTIL (unix seconds): a rotation window "
                    "must end"
                )
        return cls(_digest(current), _digest(previous) if previous else None, previous_until if previous else None)

    def accepts(self, metadata: object, now: float | None = None) -> bool:
        """True iff the call metadata carries the current secret, or the previous one within its window."""
        presented = bearer_of(metadata)
        if presented is None:
            return False
        digest = _digest(presented)
        if hmac.compare_digest(digest, self.current):
            return True
        if self.previous is None or self.previous_until is None:
            return False
        within = (time.time() if now is None else now) < self.previous_until
        return hmac.compare_digest(digest, self.previous) and within


def bearer_of(metadata: object) -> str | None:
    """The Bearer value of the `authorization` entry of gRPC call metadata (pairs or objects with key/value): the
    service credential on GameAdmin, an account's API key on the public GameService (docs/decisions/accounts.md)."""
    for item in metadata or ():  # type: ignore[attr-defined]
        key, value = (item.key, item.value) if hasattr(item, "key") else item
        if key == METADATA_KEY and isinstance(value, str):
            scheme, _, token = value.partition(" ")
            return token.strip() if scheme.lower() == "bearer" and token.strip() else None
    return None
