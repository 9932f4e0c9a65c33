// @ts-check
// The board frame's touch and mouse gestures (pointer events): drag pans the zoomed board inside its frame,
// two fingers pinch to zoom about their midpoint, Ctrl+wheel zooms about the cursor. A drag never becomes a click
// on the board target it started on. The zoom buttons and the keyboard (arrows scroll the focused frame,
// + and - zoom) keep working; at "Fit" one finger scrolls the page as usual. A touch tap (no drag, no pinch) goes
// to `onTap` first, which may take it instead of the element under the finger (taps.js).

const DRAG_PX = 6; // a move shorter than this is still a tap

/**
 * @param {HTMLElement} frame  the scrolling board frame (#board)
 * @param {() => number} getZoom
 * @param {(z: number, anchor?: {x: number, y: number}) => void} setZoom  anchor: client coordinates kept in place
 * @param {(point: {x: number, y: number}) => boolean} [onTap]  a touch tap's point; true: it was handled
 */
export function panZoom(frame, getZoom, setZoom, onTap = () => false) {
  /** @type {Map<number, {x: number, y: number}>} */
  const pointers = new Map(); // pointerId -> {x, y}
  /** @type {{x: number, y: number, left: number, top: number, moved: boolean} | null} */
  let drag = null;
  /** @type {{dist: number, zoom: number} | null} */
  let pinch = null;
  let swallowClick = false;
  let touchTap = false; // the gesture so far is one finger that has not moved

  const mid = () => {
    const [a, b] = [...pointers.values()];
    return { x: (a.x + b.x) / 2, y: (a.y + b.y) / 2, dist: Math.hypot(a.x - b.x, a.y - b.y) };
  };

  frame.addEventListener("pointerdown", (e) => {
    if (e.pointerType === "mouse" && (e.button !== 0 || getZoom() <= 1)) return; // a mouse pans only a zoomed board
    pointers.set(e.pointerId, { x: e.clientX, y: e.clientY });
    touchTap = e.pointerType === "touch" && pointers.size === 1;
    if (pointers.size === 2) {
      const m = mid();
      pinch = { dist: m.dist || 1, zoom: getZoom() };
      drag = null;
    } else if (pointers.size === 1) {
      drag = { x: e.clientX, y: e.clientY, left: frame.scrollLeft, top: frame.scrollTop, moved: false };
    }
  });

  frame.addEventListener("pointermove", (e) => {
    if (!pointers.has(e.pointerId)) return;
    pointers.set(e.pointerId, { x: e.clientX, y: e.clientY });
    if (pinch && pointers.size === 2) {
      touchTap = false;
      const m = mid();
      setZoom(pinch.zoom * (m.dist / pinch.dist), { x: m.x, y: m.y });
      swallowClick = true;
      e.preventDefault();
    } else if (drag) {
      const dx = e.clientX - drag.x;
      const dy = e.clientY - drag.y;
      if (!drag.moved && Math.hypot(dx, dy) < DRAG_PX) return;
      if (!drag.moved) {
        drag.moved = true;
        touchTap = false;
        try { frame.setPointerCapture(e.pointerId); } catch { /* synthetic pointers cannot be captured */ }
        frame.classList.add("panning");
      }
      frame.scrollLeft = drag.left - dx;
      frame.scrollTop = drag.top - dy;
      swallowClick = true;
      e.preventDefault();
    }
  });

  const end = (/** @type {PointerEvent} */ e) => {
    if (!pointers.delete(e.pointerId)) return;
    if (pointers.size < 2) pinch = null;
    if (pointers.size === 0) {
      drag = null;
      frame.classList.remove("panning");
      setTimeout(() => { swallowClick = false; }, 0); // after the click this pointerup may fire
    }
  };
  frame.addEventListener("pointerup", end);
  frame.addEventListener("pointercancel", (e) => { touchTap = false; end(e); });

  // a pan or a pinch that ends over a target must not play its action
  frame.addEventListener("click", (e) => {
    if (swallowClick) { e.stopPropagation(); e.preventDefault(); swallowClick = false; return; }
    const tapped = touchTap;
    touchTap = false;
    if (tapped && e.detail > 0 && onTap({ x: e.clientX, y: e.clientY })) { e.stopPropagation(); e.preventDefault(); }
  }, true);

  frame.addEventListener("wheel", (e) => {
    if (!e.ctrlKey) return; // a plain wheel scrolls
    e.preventDefault();
    setZoom(getZoom() * (e.deltaY < 0 ? 1.2 : 1 / 1.2), { x: e.clientX, y: e.clientY });
  }, { passive: false });

  frame.addEventListener("keydown", (e) => {
    if (e.target !== frame || e.ctrlKey || e.metaKey || e.altKey) return; // a focused target keeps its keys
    if (e.key === "+" || e.key === "=") { e.preventDefault(); setZoom(getZoom() * 1.5); }
    else if (e.key === "-") { e.preventDefault(); setZoom(getZoom() / 1.5); }
    else if (e.key === "0") { e.preventDefault(); setZoom(1); }
  });
}
