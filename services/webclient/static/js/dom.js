// @ts-check
// Tiny DOM and SVG builders, seat colours and patterns. (Words live in i18n.js and games/*.js.)
import { ui } from "./i18n.js";

const SVG_NS = "http://www.w3.org/2000/svg";

/** What a builder takes as children: nodes, text, numbers, nested lists; null, undefined and false are skipped.
 * @typedef {Node | string | number | boolean | null | undefined | ChildList} Child */
/** @typedef {Child[]} ChildList */
/** A builder's attributes: `on<event>` functions are listeners, `dataset` an object, null/undefined/false skipped.
 * @typedef {Record<string, any>} Attrs */

/** h("button", {class: "x", onclick}, "text", child...) builds an HTML element.
 * @param {string} tag @param {Attrs} [attrs] @param {...Child} children @returns {HTMLElement} */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  setAttrs(el, attrs);
  append(el, children);
  return el;
}

/** s("circle", {cx, cy, r}) builds an SVG element.
 * @param {string} tag @param {Attrs} [attrs] @param {...Child} children @returns {SVGElement} */
export function s(tag, attrs = {}, ...children) {
  const el = document.createElementNS(SVG_NS, tag);
  setAttrs(el, attrs);
  append(el, children);
  return el;
}

/** @param {HTMLElement | SVGElement} el @param {Attrs} attrs */
function setAttrs(el, attrs) {
  for (const [k, v] of Object.entries(attrs)) {
    if (v === null || v === undefined || v === false) continue;
    if (k.startsWith("on") && typeof v === "function") el.addEventListener(k.slice(2), v);
    else if (k === "dataset") Object.assign(el.dataset, v);
    // through CSSOM: the page's Content-Security-Policy refuses style attributes set as markup
    else if (k === "style") el.style.cssText = String(v);
    else el.setAttribute(k, v === true ? "" : String(v));
  }
}

/** @param {Element} el @param {Child[]} children */
function append(el, children) {
  for (const c of children) {
    if (Array.isArray(c)) { append(el, c); continue; } // nested lists, at any depth
    if (c === null || c === undefined || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
}

/**
 * Seat colours: the Okabe-Ito palette (distinguishable with the common colour-vision deficiencies), each with its
 * own pattern and shape too, so no seat is told apart by colour alone. Boards fill tokens with seatFill(seat)
 * (an SVG pattern, see svgRoot in boards/common.js); HTML shows seatBadge(seat).
 */
export const PALETTE = ["#0072B2", "#E69F00", "#009E73", "#CC79A7", "#D55E00", "#56B4E9"];
export const SHAPES = ["●", "■", "▲", "◆", "★", "⬟"];
export const PATTERNS = ["solid", "stripes", "dots", "checks", "bars", "grid"];
/** @param {number | null | undefined} seat */
export const seatColour = (seat) => (seat === null || seat === undefined || seat < 0 ? "#777" : PALETTE[seat % PALETTE.length]);
/** @param {number | null | undefined} seat */
export const seatFill = (seat) => (seat === null || seat === undefined || seat < 0 ? "#777" : `url(#seat-fill-${seat % PALETTE.length})`);
/** @param {number} seat */
export const seatShape = (seat) => SHAPES[seat % SHAPES.length];
/** A seat's badge: a patterned colour swatch with the seat's shape (decorative: the name goes beside it).
 * @param {number} seat */
export const seatBadge = (seat) => h("span", { class: `badge seat-${seat % PALETTE.length}`, "aria-hidden": "true" }, seatShape(seat));
/** @param {unknown} key */
export const words = (key) => String(key).replace(/_/g, " ");

/** A short readable text for any JSON value. @param {unknown} value @returns {string} */
export function show(value) {
  if (value === null || value === undefined) return ui("none");
  if (Array.isArray(value)) return value.length ? value.map(show).join(", ") : ui("none");
  if (typeof value === "object") {
    return Object.entries(value).map(([k, v]) => `${words(k)}: ${show(v)}`).join("; ");
  }
  if (typeof value === "boolean") return ui(value ? "yes" : "no");
  return String(value);
}

/** SVG <defs> with each seat's pattern fill (ids seat-fill-N). */
export function seatPatterns() {
  return s("defs", {}, PALETTE.map((c, i) => {
    const p = s("pattern", { id: `seat-fill-${i}`, patternUnits: "userSpaceOnUse", width: 8, height: 8 },
      s("rect", { width: 8, height: 8, fill: c }));
    const ink = { stroke: "#fff", "stroke-width": 1.6, opacity: 0.75 };
    if (PATTERNS[i] === "stripes") p.append(s("path", { d: "M-2 2 L2 -2 M0 8 L8 0 M6 10 L10 6", ...ink }));
    if (PATTERNS[i] === "dots") p.append(s("circle", { cx: 4, cy: 4, r: 1.6, fill: "#fff", opacity: 0.8 }));
    if (PATTERNS[i] === "checks") p.append(s("rect", { width: 4, height: 4, fill: "#fff", opacity: 0.45 }), s("rect", { x: 4, y: 4, width: 4, height: 4, fill: "#fff", opacity: 0.45 }));
    if (PATTERNS[i] === "bars") p.append(s("path", { d: "M0 4 L8 4", ...ink }));
    if (PATTERNS[i] === "grid") p.append(s("path", { d: "M4 0 L4 8 M0 4 L8 4", ...ink }));
    return p;
  }));
}

/** The pieces' art: one SVG sprite of <symbol>s (static/img/sprite.svg), referenced with <use>. */
export const SPRITE = "/img/sprite.svg";

/** An SVG <use> of the sprite's `id` for a board, decorative (the target's label says what it is).
 * @param {string} id @param {Attrs} [attrs] */
export const use = (id, attrs = {}) => s("use", { href: `${SPRITE}#${id}`, "aria-hidden": "true", ...attrs });

/**
 * An inline icon for HTML panels: decorative (aria-hidden) unless `label` is given, then an image with that
 * text equivalent.
 * @param {string} id @param {string | null} [label]
 */
export function icon(id, label = null) {
  const attrs = label ? { role: "img", "aria-label": label } : { "aria-hidden": "true", focusable: "false" };
  return s("svg", { class: `icon icon-${id}`, viewBox: "0 0 24 24", ...attrs }, s("use", { href: `${SPRITE}#${id}` }));
}

/** Give each body cell of `table` its column's heading as data-label, which a narrow layout writes before the value
 * (app.css: a table shown as cards). @template {HTMLElement} T @param {T} table @returns {T} */
export function labelColumns(table) {
  const heads = [...table.querySelectorAll("thead th")].map((th) => th.textContent || "");
  for (const row of table.querySelectorAll("tbody tr")) {
    [...row.children].forEach((cell, i) => { if (cell.tagName === "TD" && heads[i]) cell.setAttribute("data-label", heads[i]); });
  }
  return table;
}
