/** The pieces of the client that need no server: SSE parsing across chunk boundaries, typed errors, Retry-After. */
import assert from "node:assert/strict";
import { test } from "node:test";

import {
  GameOver, IllegalAction, QuotaExceeded, RateLimited, readSse, retryAfterMs, SkyboardClient, StaleVersion,
  Unauthenticated, errorFromBody, errorFromEvent,
} from "../src/index.js";

function body(chunks: string[]): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(encoder.encode(chunk));
      controller.close();
    },
  });
}

test("SSE frames are read whole across chunk boundaries, keep-alives skipped, ids carried", async () => {
  const text = ': keep-alive\n\nid: 3\ndata: {"type": "bid"}\n\nevent: state\ndata: {"version": 3}\r\n\r\nevent: end\ndata: {}\n\n';
  const chunks = [...text].reduce<string[]>((acc, ch, i) => (i % 7 ? (acc[acc.length - 1] += ch, acc) : [...acc, ch]), []);
  const frames = [];
  for await (const frame of readSse(body(chunks))) frames.push(frame);
  assert.deepEqual(frames, [
    { event: "message", id: "3", data: '{"type": "bid"}' },
    { event: "state", id: "3", data: '{"version": 3}' },
    { event: "end", id: "3", data: "{}" },
  ]);
});

test("error bodies become typed errors", () => {
  const stale = errorFromBody(409, { error: { code: "stale_version", message: "m", rule: null, current_version: 7 } });
  assert.ok(stale instanceof StaleVersion && stale.currentVersion === 7);
  assert.ok(errorFromBody(409, { error: { code: "game_over", message: "m" } }) instanceof GameOver);
  const illegal = errorFromBody(422, { error: { code: "illegal_action", message: "m", rule: "OS-10.2" } });
  assert.ok(illegal instanceof IllegalAction && illegal.rule === "OS-10.2");
  assert.ok(errorFromBody(429, { error: { code: "quota_exceeded", message: "m" } }) instanceof QuotaExceeded);
  assert.ok(errorFromBody(429, { error: { code: "rate_limited", message: "m" } }, 2000) instanceof RateLimited);
  assert.ok(errorFromEvent({ error: { code: "unauthenticated", message: "m" } }) instanceof Unauthenticated);
  assert.equal(errorFromBody(500, "oops").code, "error");
});

test("Retry-After in seconds or as a date; the wait is never shorter than asked, never past maxWaitMs", () => {
  assert.equal(retryAfterMs("2"), 2000);
  assert.equal(retryAfterMs(null), null);
  assert.ok((retryAfterMs(new Date(Date.now() + 5000).toUTCString()) ?? 0) > 3000);
  const client = new SkyboardClient({ retry: { attempts: 3, backoffMs: 100, maxWaitMs: 10_000 } });
  const wait = client.delayMs(0, 2000);
  assert.ok(wait !== null && wait >= 2000 && wait <= 2100);
  assert.equal(client.delayMs(0, 20_000), null);
  assert.equal(client.delayMs(2, null), null); // the third try was the last
});
