// What every board shares: making an SVG element a clickable, keyboard-reachable target of actions.
import { s, seatPatterns } from "../dom.js";

/**
 * Mark `el` as the board element named `ref` (an airport code, a route, a destination...).
 * When some legal action names it (pick.refs has it), it becomes a button: click, Enter or Space
 * calls pick.onPick(ref).
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
    el.addEventListener("click", () => pick.onPick(ref));
    el.addEventListener("keydown", (e) => {
      if (e.key === "Enter" || e.key === " ") { e.preventDefault(); pick.onPick(ref); }
    });
  }
  return el;
}

export function svgRoot(width, height, title) {
  return s("svg", { viewBox: `0 0 ${width} ${height}`, class: "board", role: "group", "aria-label": title },
    s("title", {}, title), seatPatterns());
}

export const text = (x, y, str, attrs = {}) => s("text", { x, y, ...attrs }, str);
