// @ts-check
// An error shown beside the control that caused it, in the page's language (errorText), with the wait the server
// asked for counting down: a refusal never leaves a greyed button and silence, nor the server's English at the top
// of the page.
import { errorText } from "./i18n.js";

/** @type {WeakMap<HTMLElement, ReturnType<typeof setInterval>>} */
const ticking = new WeakMap();

/**
 * Show `err` in `el` (null clears it): the words errorText gives, through `wrap` ("Could not create the game: …"),
 * the server's English as the tooltip. Where the server said how long to wait (Retry-After), the time left counts
 * down every second, and the message goes once it has passed. Screen readers hear it once, not every second.
 * @param {HTMLElement} el @param {unknown} err @param {(text: string) => string} [wrap]
 */
export function showFieldError(el, err, wrap = (text) => text) {
  clearInterval(ticking.get(el));
  ticking.delete(el);
  if (!err) {
    el.textContent = "";
    el.removeAttribute("title");
    return;
  }
  const wait = /** @type {{retryAfter?: unknown}} */ (err).retryAfter;
  const until = typeof wait === "number" && wait > 0 ? Date.now() + wait * 1000 : null;
  const render = () => {
    const left = until === null ? null : (until - Date.now()) / 1000;
    if (left !== null && left <= 0) { showFieldError(el, null); return; }
    const { text, detail } = errorText(err, left);
    el.textContent = wrap(text);
    if (detail) el.title = detail;
    else el.removeAttribute("title");
  };
  el.setAttribute("aria-live", "assertive");
  render();
  if (until !== null) {
    el.setAttribute("aria-live", "off"); // announced once above; the countdown's ticks are not read out
    ticking.set(el, setInterval(render, 1000));
  }
}
