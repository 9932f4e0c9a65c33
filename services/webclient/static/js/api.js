// REST and SSE helpers of the Skyboard client: every call the pages make goes through here.

/** An error answered by the gateway, carrying its uniform body {error: {code, message, rule}}. */
export class ApiError extends Error {
  constructor(status, body) {
    const err = (body && body.error) || {};
    super(err.message || `HTTP ${status}`);
    this.status = status;
    this.code = err.code || null;
    this.rule = err.rule || null;
  }
}

/** Call the gateway; `token` goes as a Bearer header; JSON in, JSON out; throws ApiError on 4xx/5xx. */
export async function api(path, { method = "GET", token = null, body = undefined, headers = {} } = {}) {
  const h = { Accept: "application/json", ...headers };
  if (token) h.Authorization = `Bearer ${token}`;
  if (body !== undefined) h["Content-Type"] = "application/json";
  const res = await fetch(path, { method, headers: h, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  let data = null;
  try { data = text ? JSON.parse(text) : null; } catch { data = null; }
  if (!res.ok) throw new ApiError(res.status, data);
  return data;
}

/**
 * Read a Server-Sent Events stream with fetch (EventSource cannot send the Bearer header).
 * Calls onEvent({event, id, data}) for each event until the stream ends or `signal` aborts.
 */
export async function readEvents(path, { token = null, signal, onEvent }) {
  const headers = { Accept: "text/event-stream" };
  if (token) headers.Authorization = `Bearer ${token}`;
  const res = await fetch(path, { headers, signal });
  if (!res.ok) {
    let body = null;
    try { body = await res.json(); } catch { body = null; }
    throw new ApiError(res.status, body);
  }
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  let current = { event: "message", id: null, data: [] };
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += value.replace(/\r\n?/g, "\n");
    let nl;
    while ((nl = buffer.indexOf("\n")) >= 0) {
      const line = buffer.slice(0, nl);
      buffer = buffer.slice(nl + 1);
      if (line === "") {
        if (current.data.length) {
          let data = current.data.join("\n");
          try { data = JSON.parse(data); } catch { /* keep text */ }
          onEvent({ event: current.event, id: current.id, data });
        }
        current = { event: "message", id: null, data: [] };
      } else if (!line.startsWith(":")) {
        const i = line.indexOf(":");
        const field = i < 0 ? line : line.slice(0, i);
        const val = i < 0 ? "" : line.slice(i + 1).replace(/^ /, "");
        if (field === "event") current.event = val;
        else if (field === "id") current.id = val;
        else if (field === "data") current.data.push(val);
      }
    }
  }
}
