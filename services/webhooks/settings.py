"""Configuration of webhooks: what the gateway (which registers endpoints) and the deliverer (which sends to them)
read alike (`WebhookFields`, as GATEWAY_*), and the deliverer's own knobs (`WebhookSettings`)."""

from __future__ import annotations

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

from services.common.credentials import CredentialError, check_secret
from services.matchmaker.settings import MatchmakerSettings

#: The variable that holds the server key sealing webhook secrets at rest.
KEY_VARIABLE = "GATEWAY_WEBHOOK_KEY"


class WebhookFields(BaseSettings):
    """Read by the gateway and the deliverer: the key the endpoints' secrets are sealed with, and which URLs pass."""

    webhook_key: str | None = Field(
        None, description="The server key (32 characters or more) that seals every webhook's signing secret at rest "
        "(AES-256-GCM under a key derived from it): the gateway seals with it, the deliverer opens with it, Redis "
        "never sees it. No default: without it the webhook routes answer 503 `webhooks_unavailable` and the "
        "deliverer refuses to start (`make run` generates one per stack). Changing it makes every stored secret "
        "unreadable: rotate each webhook's secret after.",
    )
    webhooks_allow_http_loopback: bool = Field(
        False, description="Development only: accept `http://` webhook URLs to a loopback address (127.0.0.0/8, "
        "::1, localhost). Otherwise a URL must be https:// to a public address (private, loopback, link-local and "
        "reserved addresses are refused, at registration and again before every delivery).",
    )
    webhooks_max: int = Field(5, ge=1, le=50, description="Webhooks one account may register (409 beyond).")
    webhook_secret_grace_s: int = Field(
        3600, ge=0, description="After a secret rotation, how long deliveries are also signed with the previous "
        "secret (a second `v1,` signature), so a receiver can switch without missing one.",
    )


def webhook_key(settings: WebhookFields) -> str:
    """The usable server key, or CredentialError saying what to set."""
    return check_secret(settings.webhook_key, KEY_VARIABLE)


class WebhookSettings(MatchmakerSettings, WebhookFields):
    """The deliverer: the accounts' Redis and key prefix (GATEWAY_*, as the gateway reads them) and its own knobs."""

    model_config = SettingsConfigDict(env_prefix="GATEWAY_", extra="ignore", frozen=True)

    webhooks_poll_s: float = Field(
        0.1, gt=0, le=5.0, description="Pause between two passes over the accounts holding webhooks when the last "
        "found nothing due (bounds the delay of a delivery).",
    )
    webhooks_concurrency: int = Field(64, ge=1, le=1024, description="Deliveries in flight at once per deliverer.")
    webhooks_per_endpoint: int = Field(
        4, ge=1, le=256, description="Deliveries in flight at once to one endpoint (one registered webhook), per "
        "deliverer; a due delivery beyond waits, unleased, for a delivery to that endpoint to end.",
    )
    webhooks_batch: int = Field(20, ge=1, le=1000, description="Due deliveries one account gives a pass at most.")
    webhooks_timeout_s: float = Field(
        10.0, gt=0, le=60, description="A delivery that has no answer this long failed (and is retried)."
    )
    webhooks_lease_s: float = Field(
        60.0, gt=0, description="A delivery taken by a deliverer that dies before recording it is due again this "
        "long after it was taken (a second deliverer then sends it, under the same `webhook-id`).",
    )
    webhooks_retry_for_s: int = Field(
        86_400, gt=0, description="How long a failing delivery is retried (exponential backoff with jitter, 5 s "
        "first, at most 2 h apart) before it is given up.",
    )
    webhooks_disable_after_s: int = Field(
        86_400, gt=0, description="An endpoint whose every delivery failed for this long is disabled, and a "
        "`webhook_disabled` event goes on its account's stream.",
    )
    webhooks_metrics_port: int = Field(9107, ge=0, description="Prometheus /metrics of the deliverer; 0: none.")


__all__ = ["KEY_VARIABLE", "CredentialError", "WebhookFields", "WebhookSettings", "webhook_key"]
