/** The Skyboard TypeScript SDK: the client, its typed errors, the generated schema types. */
export { DEFAULT_RETRY, DEFAULT_URL, retryAfterMs, SkyboardClient } from "./client.js";
export type { ClientOptions, RetryPolicy } from "./client.js";
export * from "./errors.js";
export { readSse } from "./sse.js";
export { signWebhook, verifyWebhook, WEBHOOK_TOLERANCE_S, WebhookVerificationError } from "./webhooks.js";
export type { WebhookEventType, WebhookMessage } from "./webhooks.js";
export type { SseMessage } from "./sse.js";
export type * from "./types.js";
export type { components, operations, paths } from "./schema.js";
