// @ts-check
// What every board shares: making an SVG element a clickable, keyboard-reachable target of actions.
import { s, seatPatterns } from "../dom.js";

/** @typedef {import("../types.js").Pick} Pick */

/**
 * Mark `el` as the board element named `ref` (an airport code, a route, a destination...).
 * When some legal action names it (pick.refs has it), it becomes a button: a click calls pick.onPick(ref, event)
 * (the page resolves a click by distance: taps.js), Enter or Space pick.onPick(ref, null).
 * @template {SVGElement} E
 * @param {E} el @param {string} ref @param {string} label @param {Pick | null} pick
 * @returns {E}
 */
export function target(el, ref, label, pick) {
  el.dataset.ref = ref;
  if (!(pick && pick.refs.has(ref))) { // not interactive: a tooltip (an aria-label needs a role)
    el.prepend(s("title", {}, label));
    return el;
  }
  el.setAttribute("aria-label", label);
  {
    el.classList.add("clickable");
    el.setAttribute("role", "button");
    el.setAttribute("tabindex", "0");
    el.addEventListener("click", (e) => pick.onPick(ref, e));
    el.addEventListener("keydown", (e) => {
      if (e.key === "Enter" || e.key === " ") { e.preventDefault(); pick.onPick(ref, null); }
    });
  }
  return el;
}

/** The board's <svg>. @param {number} width @param {number} height @param {string} title @returns {SVGSVGElement} */
export function svgRoot(width, height, title) {
  return /** @type {SVGSVGElement} */ (s("svg", { viewBox: `0 0 ${width} ${height}`, class: "board", role: "group", "aria-label": title },
    s("title", {}, title), seatPatterns()));
}

/** An SVG <text> at (x, y). @param {number} x @param {number} y @param {string | number} str @param {import("../dom.js").Attrs} [attrs] */
export const text = (x, y, str, attrs = {}) => s("text", { x, y, ...attrs }, str);
