// Tap and click geometry of the board (services/webclient/static/js/taps.js): distances to the drawn shapes, and
// what a tap (a 44 px fingertip) or a mouse click means when targets are near or overlap (docs/decisions/webclient-trial.md, item 3: a click on
// the crossing of FRA-LHR and AMS-CDG played one of them).
import { test } from "node:test";
import assert from "node:assert/strict";
import { boxDistance, discDistance, resolveClick, resolveTap, segmentDistance, TAP_RADIUS } from
  "../../../services/webclient/static/js/taps.js";

test("distance to a segment: perpendicular inside it, to the nearer end beyond it, 0 on it", () => {
  assert.equal(segmentDistance(5, 3, 0, 0, 10, 0), 3);
  assert.equal(segmentDistance(13, 4, 0, 0, 10, 0), 5);
  assert.equal(segmentDistance(-3, -4, 0, 0, 10, 0), 5);
  assert.equal(segmentDistance(5, 5, 0, 0, 10, 10), 0);
  assert.equal(segmentDistance(3, 4, 0, 0, 0, 0), 5, "a zero-length segment is a point");
});

test("distance to a disc and a box: 0 inside, to the edge outside", () => {
  assert.equal(discDistance(0, 0, 0, 0, 4), 0);
  assert.equal(discDistance(10, 0, 0, 0, 4), 6);
  const box = { left: 0, top: 0, right: 10, bottom: 20 };
  assert.equal(boxDistance(5, 5, box), 0);
  assert.equal(boxDistance(13, 24, box), 5);
  assert.equal(boxDistance(-2, 10, box), 2);
});

const near = (ref, dist, size = 0) => ({ ref, dist, size });

test("a tap: nothing near is nothing; one target near is picked however small it is drawn", () => {
  assert.equal(resolveTap([]), null);
  assert.deepEqual(resolveTap([near("FRA", 18, 8)]), { pick: "FRA" });
});

test("a tap among several near targets lists them, unless the finger is inside a fingertip-wide one", () => {
  assert.deepEqual(resolveTap([near("FRA", 0, 8), near("FRA-LHR", 4)]), { near: ["FRA", "FRA-LHR"] });
  assert.deepEqual(resolveTap([near("ATL", 0, 2 * TAP_RADIUS), near("BOS", 6, 60)]), { pick: "ATL" });
  assert.deepEqual(resolveTap([near("ATL", 2, 60), near("BOS", 6, 60)]), { near: ["ATL", "BOS"] });
});

test("a click on the crossing of two routes is ambiguous: both are listed, neither is played", () => {
  assert.deepEqual(resolveClick([near("AMS-CDG", 0), near("FRA-LHR", 1.5)]), { near: ["AMS-CDG", "FRA-LHR"] });
});

test("a click inside an airport picks the airport, not the routes that end under it", () => {
  assert.deepEqual(resolveClick([near("FRA-LHR", 0), near("FRA", 0, 8), near("AMS-FRA", 0.5)]), { pick: "FRA" });
  assert.deepEqual(resolveClick([near("FRA-LHR", 1)]), { pick: "FRA-LHR" });
  assert.equal(resolveClick([]), null);
});

test("two areas under the pointer (overlapping boxes) are listed, not guessed", () => {
  assert.deepEqual(resolveClick([near("LON", 0, 30), near("PAR", 0, 30)]), { near: ["LON", "PAR"] });
});
