// @ts-check
// REST and SSE helpers of the Skyboard client: every call the pages make goes through here.
import { SseParser } from "./sse.js";

/** An error answered by the gateway, carrying its uniform body {error: {code, message, rule}}. */
export class ApiError extends Error {
  /** @param {number} status @param {{error?: {code?: string, message?: string, rule?: string | null}} | null} body */
  constructor(status, body) {
    const err = (body && body.error) || {};
    super(err.message || `HTTP ${status}`);
    this.status = status;
    this.code = err.code || null;
    this.rule = err.rule || null;
  }
}

const RETRY_STATUS = new Set([429, 503]);
const MAX_TRIES = 7;
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
 * 429 (rate limited) and 503 (unavailable) are retried with back-off, except a 429 `quota_exceeded`, which
 * waiting does not cure. Retrying a POST is safe: action submissions carry an Idempotency-Key.
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
    const err = new ApiError(res.status, data);
    if (!RETRY_STATUS.has(res.status) || err.code === "quota_exceeded" || attempt + 1 >= tries) throw err;
    const wait = backoff(attempt, res.headers.get("Retry-After"));
    retryListeners.forEach((f) => f(wait, "busy"));
    await sleep(wait);
  }
}

/**
 * Read a Server-Sent Events stream with fetch (EventSource cannot send the Bearer header).
 * Calls onEvent({event, id, data}) for each event until the stream ends or `signal` aborts.
 * @param {string} path
 * @param {{token?: string | null, signal?: AbortSignal, onEvent: (ev: import("./sse.js").SseEvent) => void}} options
 */
export async function readEvents(path, { token = null, signal, onEvent }) {
  /** @type {Record<string, string>} */
  const headers = { Accept: "text/event-stream" };
  if (token) headers.Authorization = `Bearer ${token}`;
  const res = await fetch(path, { headers, signal });
  if (!res.ok) {
    let body = null;
    try { body = await res.json(); } catch { body = null; }
    throw new ApiError(res.status, body);
  }
  if (!res.body) return; // an answer without a body: nothing to read
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  const parser = new SseParser(onEvent);
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    parser.push(value);
  }
}
