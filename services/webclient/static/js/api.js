// @ts-check
// REST and SSE helpers of the Skyboard client: every call the pages make goes through here.
import { SseParser } from "./sse.js";

/** An error answered by the gateway, carrying its uniform body {error: {code, message, rule}} and, where the
 * server said when to come back (429, 503), its Retry-After in seconds. */
export class ApiError extends Error {
  /** @param {number} status @param {{error?: {code?: string, message?: string, rule?: string | null}} | null} body
   * @param {string | null} [retryAfter] the answer's Retry-After header */
  constructor(status, body, retryAfter = null) {
    const err = (body && body.error) || {};
    super(err.message || `HTTP ${status}`);
    this.status = status;
    this.code = err.code || null;
    this.rule = err.rule || null;
    const wait = retryAfter === null || retryAfter.trim() === "" ? NaN : Number(retryAfter);
    /** @type {number | null} seconds to wait before the same request can succeed */
    this.retryAfter = Number.isFinite(wait) && wait >= 0 ? wait : null;
  }
}

const RETRY_STATUS = new Set([429, 503]);
const MAX_TRIES = 7;
/** The longest server-asked wait (s) a call sits out in silence before retrying: a longer one (an address's sign-ups
 * spent for ten minutes) is the player's to know at once, with the time to wait (errorText), not 3 minutes of a
 * greyed button. */
export const MAX_SILENT_WAIT_S = 20;

/** Whether a refusal is worth the same request again after a wait: a 503, or a 429 of the request budget
 * (`rate_limited`, or no code) whose Retry-After is short. A quota (`quota_exceeded`, `too_many_accounts`,
 * `too_many_streams`...) is not cured by seconds of waiting. @param {ApiError} err */
export function retryable(err) {
  if (!RETRY_STATUS.has(err.status)) return false;
  if (err.status === 429 && err.code !== null && err.code !== "rate_limited") return false;
  return err.retryAfter === null || err.retryAfter <= MAX_SILENT_WAIT_S;
}
const sleep = (/** @type {number} */ ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Wait before retry `attempt` (0-based): the server's Retry-After when given, else exponential back-off with
 * jitter (0.5 s, 1 s, 2 s... up to 15 s). @param {number} attempt @param {string | null} [retryAfter] */
export function backoff(attempt, retryAfter = null) {
  const server = Number(retryAfter);
  if (retryAfter !== null && Number.isFinite(server) && server >= 0) return Math.min(30_000, server * 1000 + Math.random() * 250);
  return Math.min(15_000, 500 * 2 ** attempt) * (0.75 + Math.random() / 2);
}

/** Listeners told when a call waits to retry, `f(waitMs, reason)`: reason "offline" when the network failed (no
 * answer at all), "busy" when the server answered 429/503; `f(0)` when a call got through again.
 * @type {Set<(waitMs: number, reason?: "offline" | "busy") => void>} */
export const retryListeners = new Set();

/**
 * Call the gateway; `token` goes as a Bearer header; JSON in, JSON out; throws ApiError on 4xx/5xx.
 * 429 (rate limited) and 503 (unavailable) are retried with back-off while the server asks for a short wait
 * (`retryable`); a quota (`quota_exceeded`, `too_many_accounts`...), which waiting seconds does not cure, or a long
 * Retry-After is thrown at once with the wait (ApiError.retryAfter). Retrying a POST is safe: action submissions
 * carry an Idempotency-Key.
 * @param {string} path
 * @param {{method?: string, token?: string | null, body?: unknown, headers?: Record<string, string>, tries?: number}} [options]
 * @returns {Promise<any>} the answer's JSON (its shape: the route's, clients/typescript/src/schema.ts)
 */
export async function api(path, { method = "GET", token = null, body = undefined, headers = {}, tries = MAX_TRIES } = {}) {
  /** @type {Record<string, string>} */
  const h = { Accept: "application/json", ...headers };
  if (token) h.Authorization = `Bearer ${token}`;
  if (body !== undefined) h["Content-Type"] = "application/json";
  for (let attempt = 0; ; attempt++) {
    let res;
    try {
      res = await fetch(path, { method, headers: h, body: body === undefined ? undefined : JSON.stringify(body) });
    } catch (err) { // network down: retry like a 503
      if (attempt + 1 >= tries) throw err;
      const wait = backoff(attempt);
      retryListeners.forEach((f) => f(wait, "offline"));
      await sleep(wait);
      continue;
    }
    const text = await res.text();
    let data = null;
    try { data = text ? JSON.parse(text) : null; } catch { data = null; }
    if (res.ok) { if (attempt) retryListeners.forEach((f) => f(0)); return data; }
    const err = new ApiError(res.status, data, res.headers.get("Retry-After"));
    if (!retryable(err) || attempt + 1 >= tries) throw err;
    const wait = backoff(attempt, res.headers.get("Retry-After"));
    retryListeners.forEach((f) => f(wait, "busy"));
    await sleep(wait);
  }
}

/**
 * Read a Server-Sent Events stream with fetch (EventSource cannot send the Bearer header).
 * Calls onOpen() once the stream is accepted, then onEvent({event, id, data}) for each event until the stream ends
 * or `signal` aborts. `headers`: more request headers (a resume's Last-Event-ID).
 * @param {string} path
 * @param {{token?: string | null, signal?: AbortSignal, headers?: Record<string, string>, onOpen?: () => void,
 *   onEvent: (ev: import("./sse.js").SseEvent) => void}} options
 */
export async function readEvents(path, { token = null, signal, headers: extra = {}, onOpen, onEvent }) {
  /** @type {Record<string, string>} */
  const headers = { ...extra, Accept: "text/event-stream" };
  if (token) headers.Authorization = `Bearer ${token}`;
  const res = await fetch(path, { headers, signal });
  if (!res.ok) {
    let body = null;
    try { body = await res.json(); } catch { body = null; }
    throw new ApiError(res.status, body, res.headers.get("Retry-After"));
  }
  if (onOpen) onOpen();
  if (!res.body) return; // an answer without a body: nothing to read
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  const parser = new SseParser(onEvent);
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    parser.push(value);
  }
}
