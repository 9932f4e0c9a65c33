// The SSE wire format as the game page reads it (services/webclient/static/js/sse.js): events split at any byte
// of the text, CRLF and CR line ends, comments (the gateway's pings), multi-line data, JSON or text data.
import { test } from "node:test";
import assert from "node:assert/strict";
import { SseParser } from "../../../services/webclient/static/js/sse.js";

/** Every event of `chunks` fed in order. */
function parse(chunks) {
  const out = [];
  const parser = new SseParser((ev) => out.push(ev));
  for (const c of chunks) parser.push(c);
  return out;
}

const STREAM = ": ping\n\nid: 7\nevent: state\ndata: {\"version\": 7}\n\nid: 8\ndata: {\"type\": \"dice_rolled\",\ndata:  \"dice\": [3, 5]}\n\n";

test("a whole stream in one chunk: comments skipped, event type defaults to message, JSON data parsed", () => {
  assert.deepEqual(parse([STREAM]), [
    { event: "state", id: "7", data: { version: 7 } },
    { event: "message", id: "8", data: { type: "dice_rolled", dice: [3, 5] } },
  ]);
});

test("split at every position the stream reads the same", () => {
  const whole = parse([STREAM]);
  for (let i = 1; i < STREAM.length; i++) assert.deepEqual(parse([STREAM.slice(0, i), STREAM.slice(i)]), whole, `split at ${i}`);
});

test("one character at a time, with CRLF line ends split between chunks", () => {
  const crlf = STREAM.replace(/\n/g, "\r\n");
  assert.deepEqual(parse([...crlf]), parse([STREAM]));
  assert.deepEqual(parse([STREAM.replace(/\n/g, "\r")]), parse([STREAM]), "CR alone ends a line too");
});

test("data that is not JSON stays text; a field without a colon is empty; no data, no event", () => {
  assert.deepEqual(parse(["event: end\ndata: bye\n\n", "event: error\n\n", "data\n\n"]), [
    { event: "end", id: null, data: "bye" },
    { event: "message", id: null, data: "" },
  ]);
});

test("an event is dispatched only once its blank line arrives", () => {
  const out = [];
  const parser = new SseParser((ev) => out.push(ev));
  parser.push("id: 1\ndata: 1\n");
  assert.equal(out.length, 0);
  parser.push("\n");
  assert.deepEqual(out, [{ event: "message", id: "1", data: 1 }]);
});
