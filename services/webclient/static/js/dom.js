// Tiny DOM and SVG builders and the human-readable text of actions and events.

const SVG_NS = "http://www.w3.org/2000/svg";

/** h("button", {class: "x", onclick}, "text", child...) builds an HTML element. */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  setAttrs(el, attrs);
  append(el, children);
  return el;
}

/** s("circle", {cx, cy, r}) builds an SVG element. */
export function s(tag, attrs = {}, ...children) {
  const el = document.createElementNS(SVG_NS, tag);
  setAttrs(el, attrs);
  append(el, children);
  return el;
}

function setAttrs(el, attrs) {
  for (const [k, v] of Object.entries(attrs)) {
    if (v === null || v === undefined || v === false) continue;
    if (k.startsWith("on") && typeof v === "function") el.addEventListener(k.slice(2), v);
    else if (k === "dataset") Object.assign(el.dataset, v);
    else el.setAttribute(k, v === true ? "" : String(v));
  }
}

function append(el, children) {
  for (const c of children.flat(Infinity)) {
    if (c === null || c === undefined || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
}

/** Seat colours, shared by every board and panel (seat n -> PALETTE[n]). */
export const PALETTE = ["#d62728", "#1f77b4", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b"];
export const seatColour = (seat) => (seat === null || seat === undefined ? "#777" : PALETTE[seat % PALETTE.length]);
export const seatName = (seat) => `Seat ${seat}`;

export const words = (key) => String(key).replace(/_/g, " ");

/** A short readable text for any JSON value. */
export function show(value) {
  if (value === null || value === undefined) return "none";
  if (Array.isArray(value)) return value.length ? value.map(show).join(", ") : "none";
  if (typeof value === "object") {
    return Object.entries(value).map(([k, v]) => `${words(k)}: ${show(v)}`).join("; ");
  }
  if (typeof value === "boolean") return value ? "yes" : "no";
  return String(value);
}

/** "bid: fare 200, itinerary FCO, ATH" for an action JSON. */
export function actionLabel(action) {
  const fields = Object.entries(action).filter(([k]) => k !== "type");
  if (!fields.length) return words(action.type);
  return `${words(action.type)}: ${fields.map(([k, v]) => `${words(k)} ${show(v)}`).join(", ")}`;
}

const DIE = ["⚀", "⚁", "⚂", "⚃", "⚄", "⚅"];
const dieFace = (n) => (Number.isInteger(n) && n >= 1 && n <= 6 ? `${DIE[n - 1]} ${n}` : String(n));

/** An event's own fields: the engine's event JSON is flat ({type, ...data, visible_to?}, plus version in SSE). */
function eventData(ev) {
  const { type: _type, visible_to: _to, version: _v, ...data } = ev;
  return data;
}

/** Does this event carry chance (dice, draws, reveals) worth showing big? */
export function isChance(ev) {
  const d = eventData(ev);
  return /roll|dice|die|reveal|draw|passengers|price_check/.test(ev.type) || "dice" in d || "roll" in d;
}

/** The readable line of an engine event (seat first when it names one). */
export function eventText(ev) {
  const d = eventData(ev);
  const who = "seat" in d ? `${seatName(d.seat)} ` : "";
  delete d.seat;
  if (Array.isArray(d.dice)) d.dice = d.dice.map(dieFace).join("  ");
  const rest = Object.entries(d).map(([k, v]) => `${words(k)} ${typeof v === "string" ? v : show(v)}`).join(", ");
  const secret = ev.visible_to ? " (private)" : "";
  return `${who}${words(ev.type)}${secret}${rest ? ` — ${rest}` : ""}`;
}
