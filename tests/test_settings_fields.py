"""The store's fields are declared once (services/common/settings.py StoreFields, docs/decisions/one-place.md: "one
place for each fact") and every role reads them as before: the gateway and the matchmaker their `GATEWAY_` variables
first, then the unprefixed SERVICE_SECRET, ARCHIVE_URL and REDIS_CLUSTER the other services read, and nothing else
unprefixed."""

from __future__ import annotations

import pytest

from services.common.credentials import CredentialError
from services.common.settings import Settings, StoreFields
from services.gateway.settings import GatewaySettings
from services.matchmaker.settings import MatchmakerSettings
from services.outcomes.settings import OutcomesSettings

ROLES = (Settings, MatchmakerSettings, GatewaySettings, OutcomesSettings)
SHARED = ("redis_url", "redis_cluster", "key_prefix", "service_secret", "archive_url")


@pytest.fixture
def env(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    """No store variable of the outer environment leaks into a case."""
    for name in SHARED:
        for prefix in ("", "GATEWAY_"):
            monkeypatch.delenv(prefix + name.upper(), raising=False)
    monkeypatch.setenv("CELERY_BROKER_URL", "redis://127.0.0.1:6379/0")  # REDIS_CLUSTER=true needs one (Settings)
    return monkeypatch


def test_every_role_declares_the_store_fields_in_one_place() -> None:
    """The fields come from StoreFields, not re-declared per role (bar the gateway's key prefix default)."""
    for role in ROLES:
        assert issubclass(role, StoreFields)
        for name in SHARED:
            assert name in role.model_fields
            if name != "key_prefix":
                assert role.model_fields[name].description == StoreFields.model_fields[name].description, (role, name)
    assert Settings().key_prefix == "sb:" and GatewaySettings().key_prefix == "sbgw:"


def test_unprefixed_variables_serve_every_role(env: pytest.MonkeyPatch) -> None:
    env.setenv("SERVICE_SECRET", "s" * 40)
    env.setenv("ARCHIVE_URL", "sqlite+aiosqlite:///one.db")
    env.setenv("REDIS_CLUSTER", "true")
    for role in ROLES:
        settings = role()
        assert (settings.service_secret, settings.archive_url, settings.redis_cluster) == \
            ("s" * 40, "sqlite+aiosqlite:///one.db", True), role


def test_the_gateway_prefers_its_own_variables_and_reads_nothing_else_unprefixed(env: pytest.MonkeyPatch) -> None:
    env.setenv("SERVICE_SECRET", "s" * 40)
    env.setenv("GATEWAY_SERVICE_SECRET", "g" * 40)
    env.setenv("REDIS_CLUSTER", "true")
    env.setenv("GATEWAY_REDIS_CLUSTER", "false")
    env.setenv("REDIS_URL", "redis://elsewhere:6379/3")
    env.setenv("KEY_PREFIX", "other:")
    for role in (MatchmakerSettings, GatewaySettings, OutcomesSettings):
        settings = role()
        assert (settings.service_secret, settings.redis_cluster) == ("g" * 40, False), role
        assert (settings.redis_url, settings.key_prefix) == ("redis://127.0.0.1:6379/0", "sbgw:"), role
    assert (Settings().redis_url, Settings().key_prefix, Settings().service_secret) == \
        ("redis://elsewhere:6379/3", "other:", "s" * 40)


def test_the_secret_is_checked_alike(env: pytest.MonkeyPatch) -> None:
    """secret() refuses a missing secret in every role (the gateway's and matchmaker's start checks rely on it)."""
    for role in ROLES:
        with pytest.raises(CredentialError):
            role().secret()
