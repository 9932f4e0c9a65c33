// @ts-check
// The Server-Sent Events wire format (https://html.spec.whatwg.org/multipage/server-sent-events.html), parsed from
// text chunks as they arrive: kept apart from the fetch that reads them (api.js readEvents) so node's test runner can
// check it (tests/webclient/js/sse.test.mjs) without a server.

/** @typedef {{event: string, id: string | null, data: unknown}} SseEvent  data: JSON when it parses, else text */

export class SseParser {
  /** @param {(ev: SseEvent) => void} onEvent called once per complete event (a blank line ends one) */
  constructor(onEvent) {
    this.onEvent = onEvent;
    this.buffer = "";
    /** @type {{event: string, id: string | null, data: string[]}} */
    this.current = { event: "message", id: null, data: [] };
    this.lastCr = false;
  }

  /** Feed the next chunk of text (any split: a line, an event or a CRLF may straddle two chunks). @param {string} chunk */
  push(chunk) {
    // a CR at a chunk's end may be half of a CRLF: it ends the line either way, and a following LF is dropped
    const text = this.lastCr && chunk.startsWith("\n") ? chunk.slice(1) : chunk;
    this.lastCr = text.endsWith("\r");
    this.buffer += text.replace(/\r\n?/g, "\n");
    let nl;
    while ((nl = this.buffer.indexOf("\n")) >= 0) {
      const line = this.buffer.slice(0, nl);
      this.buffer = this.buffer.slice(nl + 1);
      this.line(line);
    }
  }

  /** @param {string} line one line without its end */
  line(line) {
    if (line === "") {
      if (this.current.data.length) {
        /** @type {unknown} */
        let data = this.current.data.join("\n");
        try { data = JSON.parse(/** @type {string} */ (data)); } catch { /* keep text */ }
        this.onEvent({ event: this.current.event, id: this.current.id, data });
      }
      this.current = { event: "message", id: null, data: [] };
      return;
    }
    if (line.startsWith(":")) return; // a comment (the gateway's keep-alive pings)
    const i = line.indexOf(":");
    const field = i < 0 ? line : line.slice(0, i);
    const val = i < 0 ? "" : line.slice(i + 1).replace(/^ /, "");
    if (field === "event") this.current.event = val;
    else if (field === "id") this.current.id = val;
    else if (field === "data") this.current.data.push(val);
  }
}
