/**
 * Verifying a webhook delivery (Standard Webhooks: https://www.standardwebhooks.com) with `node:crypto` only.
 *
 *     const message = verifyWebhook(secret, request.headers, rawBody); // throws WebhookVerificationError if not ours
 *
 * The signature is `v1,` + base64(HMAC-SHA256(key, `${webhook-id}.${webhook-timestamp}.${body}`)), the key being the
 * base64 after `whsec_`; `webhook-signature` may hold several, space-separated (during a secret rotation both the new
 * and the previous secret sign). A timestamp more than `toleranceS` from now is refused (replays). Verify the raw
 * body as received, before parsing it; keep the `webhook-id`s you handled: a retry or a redelivery of one event
 * carries the same id.
 */
import { createHmac, timingSafeEqual } from "node:crypto";

/** Seconds a delivery's timestamp may lie from this machine's clock, as the spec's libraries default. */
export const WEBHOOK_TOLERANCE_S = 300;

/** The event types a webhook may receive. */
export type WebhookEventType = "your_turn" | "game_end" | "challenge" | "match_found";

/** A verified delivery: `id` is its `webhook-id`; `data` is what the account stream carries for the event. */
export interface WebhookMessage {
  id: string;
  type: WebhookEventType;
  timestamp: string;
  data: Record<string, unknown>;
}

export class WebhookVerificationError extends Error {
  override name = "WebhookVerificationError";
}

type Headers = Record<string, string | string[] | undefined> | { get(name: string): string | null };

function header(headers: Headers, name: string): string | undefined {
  if (typeof (headers as { get?: unknown }).get === "function") {
    return (headers as { get(name: string): string | null }).get(name) ?? undefined;
  }
  const record = headers as Record<string, string | string[] | undefined>;
  const key = Object.keys(record).find((k) => k.toLowerCase() === name);
  const value = key === undefined ? undefined : record[key];
  return Array.isArray(value) ? value.join(" ") : value;
}

/** The `v1,<base64>` signature of one message (what the platform sends; useful for tests). */
export function signWebhook(secret: string, msgId: string, timestamp: number, body: string | Uint8Array): string {
  const key = Buffer.from(secret.startsWith("whsec_") ? secret.slice(6) : secret, "base64");
  const mac = createHmac("sha256", key).update(`${msgId}.${timestamp}.`).update(body).digest("base64");
  return `v1,${mac}`;
}

/**
 * The delivery's message if `secret` signed it within `toleranceS` of `nowS` (unix seconds; default now);
 * throws WebhookVerificationError otherwise. `headers`: a Fetch `Headers` or Node's `IncomingHttpHeaders`.
 */
export function verifyWebhook(secret: string, headers: Headers, body: string | Uint8Array,
                              options: { nowS?: number; toleranceS?: number } = {}): WebhookMessage {
  const id = header(headers, "webhook-id");
  const stamp = Number(header(headers, "webhook-timestamp"));
  const signatures = header(headers, "webhook-signature");
  if (!id || !Number.isInteger(stamp) || !signatures) {
    throw new WebhookVerificationError("missing or malformed webhook-id / webhook-timestamp / webhook-signature");
  }
  const now = options.nowS ?? Date.now() / 1000;
  if (Math.abs(now - stamp) > (options.toleranceS ?? WEBHOOK_TOLERANCE_S)) {
    throw new WebhookVerificationError("the timestamp is too old or too new");
  }
  const expected = Buffer.from(signWebhook(secret, id, stamp, body));
  const matches = signatures.split(" ").some((s) => {
    const given = Buffer.from(s);
    return s.startsWith("v1,") && given.length === expected.length && timingSafeEqual(given, expected);
  });
  if (!matches) throw new WebhookVerificationError("no signature matches the secret");
  const text = typeof body === "string" ? body : new TextDecoder().decode(body);
  return { id, ...(JSON.parse(text) as Omit<WebhookMessage, "id">) };
}
