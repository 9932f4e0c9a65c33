"""The service credential of this test run: random per run, as `make run` makes one per stack (never a constant)."""

from __future__ import annotations

import secrets

SERVICE_SECRET = secrets.token_urlsafe(32)

#: The webhook server key of this run (GATEWAY_WEBHOOK_KEY), random per run likewise.
WEBHOOK_KEY = secrets.token_urlsafe(32)
