// Taps on a touch screen choose board targets by distance, not by the element under the finger: a fingertip
// covers about 44 px, while at "Fit" zoom on a phone an airport is a few pixels wide and routes converge on it.
// Every target within TAP_RADIUS of the tap is a candidate, so each target answers taps over at least a 44 px
// circle however small it is drawn; when several are that near, the caller narrows the action list to them
// (44 px buttons) instead of guessing.

export const TAP_RADIUS = 22;

/** The client-space distance from (x, y) to a line element's segment. */
function lineDistance(el, x, y) {
  const m = el.getScreenCTM();
  if (!m) return Infinity;
  const at = (px, py) => [m.a * px + m.c * py + m.e, m.b * px + m.d * py + m.f];
  const [ax, ay] = at(el.x1.baseVal.value, el.y1.baseVal.value);
  const [bx, by] = at(el.x2.baseVal.value, el.y2.baseVal.value);
  const len2 = (bx - ax) ** 2 + (by - ay) ** 2;
  const t = len2 ? Math.max(0, Math.min(1, ((x - ax) * (bx - ax) + (y - ay) * (by - ay)) / len2)) : 0;
  return Math.hypot(x - (ax + t * (bx - ax)), y - (ay + t * (by - ay)));
}

/** Distance from (x, y) to one hit shape (0 inside it) and its smaller side in client pixels (0 for a line). */
function measure(el, x, y) {
  if (el.tagName === "line") return { dist: lineDistance(el, x, y), size: 0 };
  const r = el.getBoundingClientRect();
  if (el.tagName === "circle") {
    const radius = r.width / 2;
    return { dist: Math.max(0, Math.hypot(x - (r.left + radius), y - (r.top + r.height / 2)) - radius), size: r.width };
  }
  const dx = Math.max(r.left - x, 0, x - r.right);
  const dy = Math.max(r.top - y, 0, y - r.bottom);
  return { dist: Math.hypot(dx, dy), size: Math.min(r.width, r.height) };
}

/**
 * The interactive board targets within `radius` of the client point (x, y), nearest first:
 * [{ref, dist, size}] with each target's nearest hit shape.
 */
export function nearTargets(svg, x, y, radius = TAP_RADIUS) {
  const best = new Map();
  for (const target of svg.querySelectorAll(".clickable[data-ref]")) {
    for (const hit of target.querySelectorAll(".hit")) {
      const m = measure(hit, x, y);
      const ref = target.dataset.ref;
      if (m.dist <= radius && (!best.has(ref) || m.dist < best.get(ref).dist)) best.set(ref, { ref, ...m });
    }
  }
  return [...best.values()].sort((a, b) => a.dist - b.dist);
}

/**
 * What a tap means: {pick: ref} when one target is near, or when the finger is on a target drawn at least a
 * fingertip wide; {near: [refs]} when several are near; null when none is.
 */
export function resolveTap(near, fingertip = 2 * TAP_RADIUS) {
  if (!near.length) return null;
  if (near.length === 1) return { pick: near[0].ref };
  if (near[0].dist === 0 && near[0].size >= fingertip) return { pick: near[0].ref };
  return { near: near.map((n) => n.ref) };
}
