// @ts-check
// Taps on a touch screen choose board targets by distance, not by the element under the finger: a fingertip
// covers about 44 px, while at "Fit" zoom on a phone an airport is a few pixels wide and routes converge on it.
// Every target within TAP_RADIUS of the tap is a candidate, so each target answers taps over at least a 44 px
// circle however small it is drawn; when several are that near, the caller narrows the action list to them
// (44 px buttons) instead of guessing.

export const TAP_RADIUS = 22;
/** A mouse pointer is exact to a pixel or two: targets this near a click are all under it (a crossing of routes). */
export const CLICK_RADIUS = 3;

/** @typedef {{ref: string, dist: number, size: number}} Near  a target's distance from a point and its drawn size */
/** @typedef {{left: number, top: number, right: number, bottom: number}} Box */

/** The distance from (x, y) to the segment (ax, ay)-(bx, by). @type {(x: number, y: number, ax: number, ay: number, bx: number, by: number) => number} */
export function segmentDistance(x, y, ax, ay, bx, by) {
  const len2 = (bx - ax) ** 2 + (by - ay) ** 2;
  const t = len2 ? Math.max(0, Math.min(1, ((x - ax) * (bx - ax) + (y - ay) * (by - ay)) / len2)) : 0;
  return Math.hypot(x - (ax + t * (bx - ax)), y - (ay + t * (by - ay)));
}

/** The distance from (x, y) to a circle's disc (0 inside). @type {(x: number, y: number, cx: number, cy: number, r: number) => number} */
export const discDistance = (x, y, cx, cy, r) => Math.max(0, Math.hypot(x - cx, y - cy) - r);

/** The distance from (x, y) to a box (0 inside). @param {number} x @param {number} y @param {Box} r */
export function boxDistance(x, y, r) {
  return Math.hypot(Math.max(r.left - x, 0, x - r.right), Math.max(r.top - y, 0, y - r.bottom));
}

/** The client-space distance from (x, y) to a line element's segment. @param {SVGLineElement} el @param {number} x @param {number} y */
function lineDistance(el, x, y) {
  const m = el.getScreenCTM();
  if (!m) return Infinity;
  /** @type {(px: number, py: number) => [number, number]} */
  const at = (px, py) => [m.a * px + m.c * py + m.e, m.b * px + m.d * py + m.f];
  const [ax, ay] = at(el.x1.baseVal.value, el.y1.baseVal.value);
  const [bx, by] = at(el.x2.baseVal.value, el.y2.baseVal.value);
  return segmentDistance(x, y, ax, ay, bx, by);
}

/** Distance from (x, y) to one hit shape (0 inside it) and its smaller side in client pixels (0 for a line).
 * @param {Element} el @param {number} x @param {number} y @returns {{dist: number, size: number}} */
function measure(el, x, y) {
  if (el instanceof SVGLineElement) return { dist: lineDistance(el, x, y), size: 0 };
  const r = el.getBoundingClientRect();
  if (el.tagName === "circle") {
    const radius = r.width / 2;
    return { dist: discDistance(x, y, r.left + radius, r.top + r.height / 2, radius), size: r.width };
  }
  return { dist: boxDistance(x, y, r), size: Math.min(r.width, r.height) };
}

/**
 * The interactive board targets within `radius` of the client point (x, y), nearest first:
 * [{ref, dist, size}] with each target's nearest hit shape.
 * @param {Element} svg @param {number} x @param {number} y @returns {Near[]}
 */
export function nearTargets(svg, x, y, radius = TAP_RADIUS) {
  /** @type {Map<string, Near>} */
  const best = new Map();
  for (const target of svg.querySelectorAll(".clickable[data-ref]")) {
    for (const hit of target.querySelectorAll(".hit")) {
      const m = measure(hit, x, y);
      const ref = /** @type {SVGElement} */ (target).dataset.ref || "";
      const known = best.get(ref);
      if (m.dist <= radius && (!known || m.dist < known.dist)) best.set(ref, { ref, ...m });
    }
  }
  return [...best.values()].sort((a, b) => a.dist - b.dist);
}

/** @typedef {{pick: string} | {near: string[]}} TapChoice */

/**
 * What a tap means: {pick: ref} when one target is near, or when the finger is on a target drawn at least a
 * fingertip wide; {near: [refs]} when several are near; null when none is.
 * @param {Near[]} near nearest first @returns {TapChoice | null}
 */
export function resolveTap(near, fingertip = 2 * TAP_RADIUS) {
  if (!near.length) return null;
  if (near.length === 1) return { pick: near[0].ref };
  if (near[0].dist === 0 && near[0].size >= fingertip) return { pick: near[0].ref };
  return { near: near.map((n) => n.ref) };
}

/**
 * What a mouse click means (its targets within CLICK_RADIUS, nearest first): the one target under it; among several,
 * the one area (an airport's disc, a city's box) the pointer is inside, since the routes ending there cross under it;
 * else {near: [refs]}: a crossing of routes is ambiguous, never decided by which line happens to be drawn on top.
 * @param {Near[]} near @returns {TapChoice | null}
 */
export function resolveClick(near) {
  if (!near.length) return null;
  if (near.length === 1) return { pick: near[0].ref };
  const areas = near.filter((n) => n.dist === 0 && n.size > 0);
  if (areas.length === 1) return { pick: areas[0].ref };
  return { near: near.map((n) => n.ref) };
}
