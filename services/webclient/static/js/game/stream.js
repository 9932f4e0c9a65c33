// @ts-check
// Following the game's SSE stream as my current seat: log events go to the log, every `state` or `end` event asks
// the page to catch up. The stream reconnects with back-off from the last version seen whenever it drops or fails,
// and says so (reconnecting) instead of leaving the page on a stale position.
import { backoff, readEvents } from "../api.js";
import { ui } from "../i18n.js";
import { $, gameId, setOffline, showError, st, token } from "./state.js";

/** @typedef {import("../types.js").GameEvent} GameEvent */

/**
 * @typedef {object} StreamHandlers
 * @property {(ev: GameEvent, version: number) => void} onMessage  one log event
 * @property {(version: number, ended: boolean) => void} onState  the game moved on to `version` (or ended)
 * @property {() => void} onReconnect  the stream was opened again after a drop: fetch what was missed
 */

/** Open (or reopen) the stream of the seat I act as now; the previous one is closed. @param {StreamHandlers} on */
export function openStream(on) {
  st.stream?.abort();
  const ctrl = new AbortController();
  st.stream = ctrl;
  let ended = false;
  const path = `/v1/games/${encodeURIComponent(gameId)}/events?after=${st.lastEventVersion}`;
  readEvents(path, {
    token: token(), signal: ctrl.signal,
    onEvent: ({ event, id, data }) => {
      st.streamFailures = 0;
      if (document.body.classList.contains("offline")) setOffline(false);
      if ($("notice").textContent === ui("reconnecting")) $("notice").textContent = "";
      const version = Number(id);
      if (event === "message") {
        on.onMessage(/** @type {GameEvent} */ (data), version);
      } else if (event === "state" || event === "end") {
        if (event === "end") ended = true;
        st.lastEventVersion = Math.max(st.lastEventVersion, version);
        on.onState(version, event === "end");
      } else if (event === "error") {
        const body = /** @type {{error?: {message?: string}} | null} */ (data);
        showError(new Error(body?.error?.message || ui("stream_error")));
      }
    },
  }).then(resume, resume);
  function resume() {
    if (st.stream !== ctrl || ctrl.signal.aborted || ended || (st.game && st.game.status !== "active")) return;
    const wait = backoff(Math.min(st.streamFailures++, 5));
    if (st.streamFailures > 1 || !navigator.onLine) $("notice").textContent = ui("reconnecting");
    if (!navigator.onLine) setOffline(true);
    setTimeout(() => {
      if (st.stream === ctrl && !ctrl.signal.aborted) { openStream(on); on.onReconnect(); }
    }, wait);
  }
}
