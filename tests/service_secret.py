"""The service credential of this test run: random per run, as `make run` makes one per stack (never a constant)."""

from __future__ import annotations

import secrets

SERVICE_SECRET = secrets.token_urlsafe(32)
