"""`/v1/players/me/webhooks...`: the caller's webhooks (services/webhooks/): register, list, delete, rotate the
secret, enable again, read the delivery log, redeliver. The deliveries themselves are made by
`python -m services.webhooks`; docs/webhooks.md says how to verify them."""

from __future__ import annotations

from fastapi import APIRouter

from services.gateway.auth import CurrentPlayer
from services.gateway.context import Ctx
from services.gateway.http.errors import ERROR_RESPONSES, ApiError
from services.gateway.models.webhooks import (
    Delivery,
    DeliveryLog,
    NewWebhook,
    Redelivery,
    SecretRotated,
    WebhookCreated,
    WebhookDeleted,
    WebhookList,
    WebhookOut,
)
from services.webhooks import urls
from services.webhooks.store import TooMany, Webhook

router = APIRouter(prefix="/v1/players/me/webhooks", responses=ERROR_RESPONSES)
#: the OpenAPI tag (services/gateway/openapi/tags.py names it from the path as well)
WEBHOOKS = ["webhooks"]
NO_SUCH = "no such webhook"


def _out(hook: Webhook) -> WebhookOut:
    return WebhookOut(**hook.public())


@router.post(
    "", tags=WEBHOOKS, status_code=201, response_model=WebhookCreated, summary="Register a webhook",
    description="Deliveries of the chosen event types (`your_turn`, `game_end`, `challenge`, `match_found`) are "
    "POSTed to `url`, signed in the Standard Webhooks shape (`webhook-id`, `webhook-timestamp`, `webhook-signature`; "
    "docs/webhooks.md). The answer holds the signing `secret`, shown only here. `url` must be https:// to a public "
    "address (422 `webhook_url_refused` otherwise: private, loopback, link-local and reserved addresses are refused); "
    "an account holds at most `GATEWAY_WEBHOOKS_MAX` (5) webhooks (409 `too_many_webhooks`).",
)
async def create_webhook(body: NewWebhook, player_id: CurrentPlayer, c: Ctx) -> WebhookCreated:
    store = c.webhooks
    try:
        await urls.check(body.url, c.settings.webhooks_allow_http_loopback)
    except urls.UrlRefused as exc:
        raise ApiError(422, str(exc), "webhook_url_refused") from None
    try:
        hook, secret = await store.create(player_id, body.url, body.events, body.description)
    except TooMany:
        raise ApiError(409, f"an account holds at most {c.settings.webhooks_max} webhooks: delete one first",
                       "too_many_webhooks") from None
    return WebhookCreated(**hook.public(), secret=secret)


@router.get("", tags=WEBHOOKS, response_model=WebhookList, summary="The caller's webhooks (never their secrets)")
async def list_webhooks(player_id: CurrentPlayer, c: Ctx) -> WebhookList:
    return WebhookList(webhooks=[_out(h) for h in await c.webhooks.list(player_id)])


async def _hook(c: Ctx, player_id: str, webhook_id: str) -> Webhook:
    hook = await c.webhooks.get(player_id, webhook_id) if len(webhook_id) <= 64 else None
    if hook is None:
        raise ApiError(404, NO_SUCH)
    return hook


@router.get("/{webhook_id}", tags=WEBHOOKS, response_model=WebhookOut, summary="One webhook of the caller")
async def get_webhook(webhook_id: str, player_id: CurrentPlayer, c: Ctx) -> WebhookOut:
    return _out(await _hook(c, player_id, webhook_id))


@router.delete("/{webhook_id}", tags=WEBHOOKS, response_model=WebhookDeleted,
               summary="Delete a webhook, with its queued deliveries and log")
async def delete_webhook(webhook_id: str, player_id: CurrentPlayer, c: Ctx) -> WebhookDeleted:
    if len(webhook_id) > 64 or not await c.webhooks.delete(player_id, webhook_id):
        raise ApiError(404, NO_SUCH)
    return WebhookDeleted(webhook_id=webhook_id, deleted=True)


@router.post(
    "/{webhook_id}/rotate-secret", tags=WEBHOOKS, response_model=SecretRotated, summary="Rotate a webhook's secret",
    description="Answers a new signing secret, shown only here. For `GATEWAY_WEBHOOK_SECRET_GRACE_S` (1 h) every "
    "delivery carries two signatures, the new secret's and the previous one's, so the receiver can switch.",
)
async def rotate_secret(webhook_id: str, player_id: CurrentPlayer, c: Ctx) -> SecretRotated:
    secret = await c.webhooks.rotate(player_id, webhook_id) if len(webhook_id) <= 64 else None
    if secret is None:
        raise ApiError(404, NO_SUCH)
    return SecretRotated(secret=secret, previous_secret_valid_s=c.settings.webhook_secret_grace_s)


@router.post(
    "/{webhook_id}/enable", tags=WEBHOOKS, response_model=WebhookOut, summary="Enable a disabled webhook again",
    description="A webhook whose deliveries kept failing is disabled (a `webhook_disabled` event on the account "
    "stream says so, and its queued deliveries are dropped). Once its receiver works, enable it: new events are "
    "delivered again; redeliver the ones it missed from the log.",
)
async def enable_webhook(webhook_id: str, player_id: CurrentPlayer, c: Ctx) -> WebhookOut:
    await _hook(c, player_id, webhook_id)
    await c.webhooks.set_enabled(player_id, webhook_id, None)
    return _out(await _hook(c, player_id, webhook_id))


@router.get(
    "/{webhook_id}/deliveries", tags=WEBHOOKS, response_model=DeliveryLog, summary="A webhook's delivery log",
    description="Its last 100 attempts, newest first: the event, the attempt number, the receiver's status code "
    "(null: no answer), the latency, the outcome and when the next attempt is due.",
)
async def delivery_log(webhook_id: str, player_id: CurrentPlayer, c: Ctx) -> DeliveryLog:
    await _hook(c, player_id, webhook_id)
    entries = await c.webhooks.log(player_id, webhook_id)
    return DeliveryLog(deliveries=[Delivery(**{k: v for k, v in e.items() if k != "data"}) for e in entries])


@router.post(
    "/{webhook_id}/deliveries/{delivery_id}/redeliver", tags=WEBHOOKS, status_code=202, response_model=Redelivery,
    summary="Deliver a logged event again",
    description="Queues the event of a delivery in the log again, due now, with the same `webhook-id` (a receiver "
    "that already handled it may answer 2xx without acting). 409 `webhook_disabled` while the webhook is disabled.",
)
async def redeliver(webhook_id: str, delivery_id: str, player_id: CurrentPlayer, c: Ctx) -> Redelivery:
    await _hook(c, player_id, webhook_id)
    queued = await c.webhooks.redeliver(player_id, webhook_id, delivery_id) if len(delivery_id) <= 64 else None
    if queued is None:
        raise ApiError(404, "no such delivery in this webhook's log")
    if not queued:
        raise ApiError(409, "the webhook is disabled: enable it first (POST .../enable)", "webhook_disabled")
    return Redelivery(queued=True, delivery_id=delivery_id)
