"""Bodies of the webhook routes (services/gateway/routes/webhooks.py)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

#: The event types a webhook may take (services/accounts/events.py WEBHOOK_TYPES, spelled for the schema).
WebhookEvent = Literal["your_turn", "game_end", "challenge", "match_found"]


class NewWebhook(BaseModel):
    model_config = ConfigDict(extra="forbid")

    url: str = Field(max_length=2000, description="Where deliveries are POSTed: https:// to a public address.")
    events: list[WebhookEvent] = Field(min_length=1, max_length=4, description="The event types it receives.")
    description: str = Field("", max_length=200, description="A note of your own (shown in listings).")


class WebhookDisabled(BaseModel):
    reason: str
    at_ms: int
    failing_since_ms: int | None = None


class WebhookOut(BaseModel):
    webhook_id: str
    url: str
    events: list[WebhookEvent]
    description: str
    created_ms: int
    enabled: bool
    disabled: WebhookDisabled | None = Field(None, description="Why and when it was disabled (null: enabled).")


class WebhookCreated(WebhookOut):
    secret: str = Field(description="The signing secret (`whsec_` + base64), shown only here: verify every "
                                    "delivery's `webhook-signature` with it (docs/webhooks.md).")


class WebhookList(BaseModel):
    webhooks: list[WebhookOut]


class WebhookDeleted(BaseModel):
    webhook_id: str
    deleted: bool


class SecretRotated(BaseModel):
    secret: str = Field(description="The new signing secret, shown only here.")
    previous_secret_valid_s: int = Field(description="Seconds deliveries are also signed with the previous secret "
                                                     "(a second `v1,` signature).")


class Delivery(BaseModel):
    delivery_id: str = Field(description="The `webhook-id` of the delivery (`msg_` + the webhook's id + `_` "
                                         "+ the account-stream entry id).")
    type: WebhookEvent
    event: str = Field(description="The account-stream entry id of the event.")
    event_ms: int
    attempt: int = Field(description="1 for the first attempt; a redelivery counts from 1 again.")
    outcome: Literal["delivered", "retry", "gave_up"]
    status_code: int | None = Field(description="The receiver's HTTP status (null: no answer).")
    latency_ms: float | None
    at_ms: int = Field(description="When the attempt was made.")
    next_attempt_ms: int | None = Field(description="When it is tried again (outcome `retry`).")
    error: str | None
    manual: bool = Field(description="A redelivery asked for over the API.")


class DeliveryLog(BaseModel):
    deliveries: list[Delivery] = Field(description="The last 100 attempts, newest first.")


class Redelivery(BaseModel):
    queued: bool
    delivery_id: str
