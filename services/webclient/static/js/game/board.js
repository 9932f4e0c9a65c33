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

/** The board refs of the staged choice (its element, or every element a listed action names, and what the map shows
 * of it: a route's connections), or of the narrowed list. @param {View} view */
const chosenRefs = (view) => (st.staged ? [...(st.staged.ref ? [st.staged.ref] : refsOf(st.staged.action)),
  ...pres().previewRefs(st.staged.action, ctxFor(view))] : st.filterRefs || []);

/** Show on the board what a choice pointed at in the action list would do (a route's path), or nothing (null).
 * @param {import("../types.js").Action | null} action */
export function previewOnBoard(action) {
  const svg = $("board").querySelector("svg");
  const view = st.game?.view;
  if (svg && view) mark(svg, "preview", action ? [...refsOf(action), ...pres().previewRefs(action, ctxFor(view))] : []);
}

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
  mark(svg, "selected", chosenRefs(view));
  mark(svg, "last-move", st.lastRefs);
  svg.classList.toggle("staging", !!st.staged); // the other targets step back while a choice waits for its confirmation
  svg.style.setProperty("--zoom", String(st.zoom));
  $("board").replaceChildren(svg);
  fitToFrame(svg);
  if (st.readable) { // the labels drawn now may be smaller than the last board's: the zoom that reads them all
    st.zoom = Math.max(1, Math.min(maxZoom(), readableZoom(svg)));
    svg.style.setProperty("--zoom", String(st.zoom));
  }
  $("zoom-read").hidden = readableZoom(svg) <= 1.01; // every label readable at Fit already (a desktop)
  $("board-extra").replaceChildren(...extra);
}

/**
 * The width (CSS px) the whole board is drawn at when it fits (zoom 1, "Fit"): its frame's width, or less where the
 * board would be taller than FIT_HEIGHT of the window. Set on the board as --fit-width (app.css draws it at
 * --fit-width x --zoom), again whenever the window changes size. @param {SVGSVGElement} svg
 */
export function fitToFrame(svg) {
  const frame = $("board");
  const box = svg.viewBox.baseVal;
  if (!frame.clientWidth || !box?.width || !box.height) return;
  const width = Math.min(frame.clientWidth, Math.floor((innerHeight * FIT_HEIGHT * box.width) / box.height));
  svg.style.setProperty("--fit-width", `${width}px`);
}

/** The most of the window's height the whole board takes at "Fit" (the zoomed frame's max-height, app.css). */
const FIT_HEIGHT = 0.85;

/** The zoom (1 = the whole board) at which the board's smallest label is LABEL_FLOOR_PX: above 1 on a phone, where
 * "Readable" zooms to it. @param {SVGSVGElement} svg */
export function readableZoom(svg) {
  const fit = parseFloat(svg.style.getPropertyValue("--fit-width")) || $("board").clientWidth || 1;
  return Math.max(1, readableWidth(svg) / fit);
}

/** The largest zoom: 4 times the whole board, or twice the readable one where that is more (a phone). */
function maxZoom() {
  const svg = /** @type {SVGSVGElement | null} */ ($("board").querySelector("svg"));
  return Math.max(4, svg ? 2 * readableZoom(svg) : 4);
}

/** Zoom to where every label is readable (LABEL_FLOOR_PX), showing the middle of my targets: a phone's "Readable". */
export function zoomToRead() {
  const svg = /** @type {SVGSVGElement | null} */ ($("board").querySelector("svg"));
  if (!svg) return;
  setZoom(readableZoom(svg));
  st.readable = true; // kept through redraws (drawBoard), until the player zooms otherwise
  centreOnTargets(svg);
}

/**
 * A board wider than its frame (zoomed) shows the middle of my targets (else of the board), not its left edge.
 * @param {SVGSVGElement} svg
 */
function centreOnTargets(svg) {
  const frame = $("board");
  if (!svg.isConnected || !frame.clientWidth) return;
  if (frame.scrollWidth <= frame.clientWidth) return;
  const boxes = [...svg.querySelectorAll(".clickable")].map((el) => el.getBoundingClientRect());
  const left = boxes.length ? Math.min(...boxes.map((b) => b.left)) : svg.getBoundingClientRect().left;
  const right = boxes.length ? Math.max(...boxes.map((b) => b.right)) : svg.getBoundingClientRect().right;
  const box = frame.getBoundingClientRect();
  frame.scrollLeft += (left + right) / 2 - (box.left + box.width / 2);
}

/** The size (CSS px) at which a board label is readable on a phone (docs/decisions/webclient-trial.md: 5-7 px at a 390 px Fit). */
export const LABEL_FLOOR_PX = 11;

/**
 * The width (CSS px) at which the board's smallest label is drawn at LABEL_FLOOR_PX: where "Readable" zooms a phone's
 * board to (a finger pans what is wider than the screen), and twice it is the zoom's limit. Measured from the labels
 * drawn, so a label added later (a callsign) counts too.
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
 * Zoom the board (1 = the whole board, "Fit"; up to `maxZoom`), keeping the board point under `anchor` (client
 * coordinates; default: the frame's centre) where it is.
 * @param {number} z @param {{x: number, y: number} | null} [anchor]
 */
export function setZoom(z, anchor = null) {
  const frame = $("board");
  st.readable = false;
  st.zoom = Math.max(1, Math.min(maxZoom(), z));
  const svg = frame.querySelector("svg");
  if (!svg) return;
  const box = frame.getBoundingClientRect();
  const ax = (anchor ? anchor.x : box.left + box.width / 2) - box.left;
  const ay = (anchor ? anchor.y : box.top + box.height / 2) - box.top;
  const before = svg.getBoundingClientRect().width || 1; // the drawn width
  const px = frame.scrollLeft + ax; // the anchor's board point, in pixels of the board as drawn before
  const py = frame.scrollTop + ay;
  svg.style.setProperty("--zoom", String(st.zoom));
  frame.classList.toggle("zoomed", st.zoom > 1);
  const k = svg.getBoundingClientRect().width / before;
  frame.scrollLeft = px * k - ax;
  frame.scrollTop = py * k - ay;
}
