// @ts-check
// Blue Skies board: the grid of airports (data file col/row) coloured by region, each with its gate
// spaces (owner colour, passengers at the gate), waiting passengers, value and the next gate's cost.
// Words: the catalogue's blueskies.board.
import { h, s, seatFill, use } from "../dom.js";
import { joinAnd, section, ui, wordsOf } from "../i18n.js";
import { svgRoot, target, text } from "./common.js";

const word = wordsOf("blueskies", "board");

const CW = 160;
const CH = 128;
/** A printed airport. @typedef {{code: string, name: string, col: number, row: number, value: number, regions: string[],
 *   spaces: {cost: number}[]}} BsAirport */
/** An airport in the view. @typedef {{code: string, passengers: number, next_cost?: number | null, usable_spaces?: number,
 *   gates: {space: number, owner: number | "local", passengers: number}[]}} BsAirportState */

/** @type {Record<string, string>} */
const REGION_COLOURS = { NE: "#cfe2ff", MA: "#d3f9d8", SE: "#fff3bf", GL: "#e5dbff", CE: "#ffe8cc", SW: "#ffd8d8",
  WE: "#c5f6fa" };

export const drawnKeys = ["airports", "bag"];

/**
 * The board of `view` (the interface of types.js Board).
 * @param {import("../types.js").BlueskiesView} view @param {import("../types.js").BoardData} data
 * @param {import("../types.js").Pick} pick @param {import("../types.js").Ctx<import("../types.js").BlueskiesView>} ctx
 * @returns {[SVGSVGElement, ...HTMLElement[]]}
 */
export function draw(view, data, pick, ctx) {
  const name = ctx.name;
  const owner = (/** @type {number | "local"} */ o) => (o === "local" ? word("local_airline") : name(o));
  /** @type {BsAirport[]} */
  const airports = data.blueskies.airports;
  const cols = Math.max(...airports.map((a) => a.col));
  const rows = Math.max(...airports.map((a) => a.row));
  const W = cols * CW + 20;
  const H = rows * CH + 60;
  /** @type {Record<string, BsAirportState>} */
  const state = Object.fromEntries((view.airports || []).map((/** @type {BsAirportState} */ a) => [a.code, a]));
  const svg = svgRoot(W, H, word("grid_title"));
  svg.append(s("rect", { x: 0, y: 0, width: W, height: H, class: "sea" }));
  svg.append(text(10, 26, word("caption", { round: view.round, red: view.bag?.red ?? "?", green: view.bag?.green ?? "?" }),
    { class: "board-caption" }));
  const hand = new Set(view.hand || []);
  /** @param {string} id */
  const regionName = (id) => section("blueskies", "regions")[id] || id;
  for (const a of airports) {
    const aName = section("blueskies", "airports")[a.code] || a.name; // the page's language's
    const x = 10 + (a.col - 1) * CW;
    const y = 40 + (a.row - 1) * CH;
    /** @type {BsAirportState} */
    const st = state[a.code] || { code: a.code, gates: [], passengers: 0 };
    const g = s("g", { class: `bs-airport${hand.has(a.code) ? " in-hand" : ""}` });
    g.append(s("rect", { x: x + 3, y: y + 3, width: CW - 6, height: CH - 6, rx: 8, class: "bs-cell hit",
      fill: REGION_COLOURS[a.regions[0]] || "#eee" }));
    // an airport of two regions: the second one's colour as a band down the cell's right edge (the legend names
    // the colours; the cell's label names the regions), never the regions' codes
    a.regions.slice(1).forEach((r, i) => g.append(s("rect", { x: x + CW - 17 - 9 * i, y: y + 30, width: 8, height: CH - 40,
      rx: 3, class: "bs-region-band", fill: REGION_COLOURS[r] || "#eee" })));
    g.append(text(x + 10, y + 22, a.code, { class: "apt-code" }),
      text(x + CW - 12, y + 22, word("value", { value: a.value }), { class: "small-label", "text-anchor": "end" }),
      text(x + 10, y + 37, aName.length > 22 ? `${aName.slice(0, 21)}…` : aName, { class: "small-label" }));
    if (st.next_cost != null) g.append(text(x + 10, y + 52, word("next_gate", { cost: st.next_cost }), { class: "small-label" }));
    for (let i = 0; i < st.passengers; i++) {
      g.append(use("passenger", { x: x + 9 + (i % 12) * 11, y: y + 58 + Math.floor(i / 12) * 11, width: 10, height: 10,
        class: "passenger" }));
    }
    const spaces = a.spaces.length;
    for (let i = 0; i < spaces; i++) {
      const gate = st.gates.find((gt) => gt.space === i + 1);
      const usable = i < (st.usable_spaces ?? spaces);
      const gx = x + 10 + i * 36;
      const gy = y + 82;
      const fill = gate ? (gate.owner === "local" ? "#999" : seatFill(gate.owner)) : usable ? "#fff" : "#ddd";
      g.append(s("rect", { x: gx, y: gy, width: 30, height: 30, rx: 4, class: "gate", fill },
        s("title", {}, gate ? word("gate_owned", { n: i + 1, owner: owner(gate.owner), passengers: gate.passengers })
          : word(usable ? "gate_free" : "gate_not_in_play", { n: i + 1, cost: a.spaces[i].cost }))));
      g.append(text(gx + 15, gy + 20, gate ? String(gate.passengers) : String(a.spaces[i].cost),
        { class: gate ? "gate-text" : "gate-cost", "text-anchor": "middle" }));
    }
    const owners = st.gates.map((gt) => owner(gt.owner));
    svg.append(target(g, a.code, word(owners.length ? "airport_gates" : "airport",
      { code: a.code, name: aName, regions: joinAnd(a.regions.map(regionName)), waiting: st.passengers,
        gates: owners.join(", ") }), pick));
  }
  const regions = h("section", { class: "panel" }, h("h3", {}, word("regions")),
    h("ul", { class: "legend" }, data.blueskies.regions.map((/** @type {{id: string, name: string, bonus: number}} */ r) => h("li", {},
      h("span", { class: "swatch", style: `background:${REGION_COLOURS[r.id] || "#eee"}` }),
      word("region", { name: section("blueskies", "regions")[r.id] || r.name, bonus: r.bonus })))));
  return [svg, regions];
}
