/**
 * A Server-Sent Events reader over `fetch` (no EventSource: it cannot send `Authorization`), one event at a time.
 * Kept apart from the client so the parsing is tested on its own, byte boundaries included.
 */

/** One event as sent: `event` defaults to `message`; `data` is the text of its data lines joined by newlines. */
export interface SseMessage {
  event: string;
  id: string | null;
  data: string;
}

/** The events of a `text/event-stream` body, in order; comments and keep-alives yield nothing. */
export async function* readSse(body: ReadableStream<Uint8Array>): AsyncGenerator<SseMessage> {
  const decoder = new TextDecoder();
  const reader = body.getReader();
  let buffer = "";
  let event = "";
  let id: string | null = null;
  let data: string[] = [];
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buffer += decoder.decode(value, { stream: true });
      let newline: number;
      while ((newline = buffer.search(/\r\n|\r|\n/)) >= 0) {
        const line = buffer.slice(0, newline);
        buffer = buffer.slice(newline + (buffer.startsWith("\r\n", newline) ? 2 : 1));
        if (line === "") {
          if (data.length) yield { event: event || "message", id, data: data.join("\n") };
          event = "";
          data = [];
          continue;
        }
        if (line.startsWith(":")) continue;
        const colon = line.indexOf(":");
        const name = colon < 0 ? line : line.slice(0, colon);
        const text = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
        if (name === "event") event = text;
        else if (name === "data") data.push(text);
        else if (name === "id") id = text;
      }
    }
  } finally {
    // a consumer that stops early closes the connection (else it stays open and keeps the process alive)
    await reader.cancel().catch(() => undefined);
    reader.releaseLock();
  }
}
