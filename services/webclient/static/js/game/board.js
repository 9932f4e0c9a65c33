// @ts-check
// The board frame: draws the game's board (boards/<game>.js) with the targets legal actions name, marks the last
// move's and the chosen elements, and zooms about a point.
import { h } from "../dom.js";
import { refsOf } from "../actions.js";
import { ui } from "../i18n.js";
import { $, boardOf, ctxFor, pres, st } from "./state.js";

/** @typedef {import("../types.js").View} View */
/** @typedef {import("../types.js").Pick} Pick */

/** Add `cls` to the board elements named by `refs` (and remove it from every other). @param {Element} svg @param {string} cls @param {Iterable<string>} refs */
function mark(svg, cls, refs) {
  svg.querySelectorAll(`.${cls}`).forEach((el) => el.classList.remove(cls));
  for (const ref of refs) svg.querySelectorAll(`[data-ref="${CSS.escape(ref)}"]`).forEach((el) => el.classList.add(cls));
}

/** The board refs of the staged choice, or of the narrowed list. */
const chosenRefs = () => (st.staged ? [st.staged.ref] : st.filterRefs || []);

/**
 * Draw the board of `view`. With `onPick`, the targets of my legal actions are buttons calling it (a click with its
 * event, the keyboard with null); without it (a replay, a spectator) nothing is a target.
 * @param {View} view @param {Pick["onPick"] | null} onPick
 */
export function drawBoard(view, onPick) {
  const board = boardOf();
  /** @type {Set<string>} */
  const refs = new Set();
  if (onPick) st.actions.forEach((a) => refsOf(a).forEach((r) => refs.add(r)));
  /** @type {Pick} */
  const pick = { refs, onPick: onPick || (() => {}), label: (ref) => pres().refLabel(ref, ctxFor(view)) || ref };
  if (!st.boardData) {
    $("board").replaceChildren(h("p", { class: "muted" }, ui("loading_board")));
    $("board-extra").replaceChildren();
    return;
  }
  const [svg, ...extra] = board.draw(view, st.boardData, pick, ctxFor(view));
  mark(svg, "selected", chosenRefs());
  mark(svg, "last-move", st.lastRefs);
  svg.classList.toggle("staging", !!st.staged); // the other targets step back while a choice waits for its confirmation
  svg.style.setProperty("--zoom", String(st.zoom));
  $("board").replaceChildren(svg);
  svg.style.setProperty("--readable-width", `${readableWidth(svg)}px`);
  if (!centred) requestAnimationFrame(() => centreOnTargets(svg)); // once laid out (the page may still be hidden)
  $("board-extra").replaceChildren(...extra);
}

/** The board was first shown centred on the targets (once a page: later the player's own panning stands). */
let centred = false;

/**
 * A board wider than its frame (a phone's readable Fit) first shows the middle of my targets (else of the board),
 * not its left edge. @param {SVGSVGElement} svg
 */
function centreOnTargets(svg) {
  const frame = $("board");
  if (centred || !svg.isConnected || !frame.clientWidth) return;
  centred = true;
  if (frame.scrollWidth <= frame.clientWidth) return;
  const boxes = [...svg.querySelectorAll(".clickable")].map((el) => el.getBoundingClientRect());
  const left = boxes.length ? Math.min(...boxes.map((b) => b.left)) : svg.getBoundingClientRect().left;
  const right = boxes.length ? Math.max(...boxes.map((b) => b.right)) : svg.getBoundingClientRect().right;
  const box = frame.getBoundingClientRect();
  frame.scrollLeft += (left + right) / 2 - (box.left + box.width / 2);
}

/** The smallest size (CSS px) a board label may be drawn at on a phone (issue #38: 5-7 px at a 390 px Fit). */
export const LABEL_FLOOR_PX = 11;

/**
 * The width (CSS px) at which the board's smallest label is drawn at LABEL_FLOOR_PX. The phone layout (app.css)
 * never draws the board narrower than this, so its Fit keeps every label readable and a finger pans what is wider
 * than the screen. Measured from the labels drawn, so a label added later (a callsign) counts too.
 * @param {SVGSVGElement} svg @returns {number}
 */
export function readableWidth(svg) {
  let smallest = Infinity;
  svg.querySelectorAll("text").forEach((t) => {
    const size = parseFloat(getComputedStyle(t).fontSize);
    if (t.textContent?.trim() && size > 0) smallest = Math.min(smallest, size);
  });
  const units = svg.viewBox.baseVal?.width || 0;
  return Number.isFinite(smallest) && units ? Math.ceil((units * LABEL_FLOOR_PX) / smallest) : 0;
}

/** Highlight the board elements the latest events named, in place (the board is not redrawn). */
export function markLastMove() {
  const svg = $("board").querySelector("svg");
  if (svg) mark(svg, "last-move", st.lastRefs);
}

/**
 * Zoom the board (1 = fit, up to 4), keeping the board point under `anchor` (client coordinates; default: the
 * frame's centre) where it is.
 * @param {number} z @param {{x: number, y: number} | null} [anchor]
 */
export function setZoom(z, anchor = null) {
  const frame = $("board");
  st.zoom = Math.max(1, Math.min(4, z));
  const svg = frame.querySelector("svg");
  if (!svg) return;
  const box = frame.getBoundingClientRect();
  const ax = (anchor ? anchor.x : box.left + box.width / 2) - box.left;
  const ay = (anchor ? anchor.y : box.top + box.height / 2) - box.top;
  const before = svg.getBoundingClientRect().width || 1; // the drawn width: a phone's Fit may be wider than the frame
  const px = frame.scrollLeft + ax; // the anchor's board point, in pixels of the board as drawn before
  const py = frame.scrollTop + ay;
  svg.style.setProperty("--zoom", String(st.zoom));
  frame.classList.toggle("zoomed", st.zoom > 1);
  const k = svg.getBoundingClientRect().width / before;
  frame.scrollLeft = px * k - ax;
  frame.scrollTop = py * k - ay;
}
