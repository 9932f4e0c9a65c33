// @ts-check
// Aeroplanes board: destinations (board.json x/y) joined by coloured connections, each destination's
// slots with airport tiles by stage and owner; beside the map, the passenger waiting area and overflow (HTML, read
// every turn: at the map's scale its words were 9 px and cut off) and the aircraft display with the cards' data.
// Words: the catalogue's aeroplanes.board (and .regions, .text for the stages).
import { h, icon, s, seatFill, use } from "../dom.js";
import { section, ui, wordsOf } from "../i18n.js";
import { svgRoot, target, text } from "./common.js";
import { rulesFor, showWithRules } from "../rules.js";

const W = 1020;
const H = 800;
const STAGES = ["", "I", "II", "III"]; // as the data files print them (cards' `stage`)
const word = wordsOf("aeroplanes", "board");
/** @typedef {import("../types.js").BoardData} BoardData */
/** A slot in the view: empty (null), blocked, or a seat's airport tile of a stage (0: the home airport).
 * @typedef {{seat: number, stage: number} | "blocked" | null} Slot */
/** @type {Record<string, string>} */
const COLOURS = { white: "#ffffff", red: "#e03131", black: "#222222" };

// Europe drawn roomier than the data file's coordinates (same relative places), so that no destination box
// overlaps another and no connection runs under a neighbour's box.
/** @type {Record<string, [number, number]>} */
const EUROPE_LAYOUT = {
  stockholm: [470, 60], copenhagen: [390, 110], london: [220, 170], amsterdam: [305, 160], berlin: [420, 170],
  warsaw: [530, 170], paris: [260, 235], frankfurt: [360, 225], vienna: [500, 250], zurich: [390, 295],
  madrid: [190, 320], rome: [480, 355],
};

export const drawnKeys = ["slots", "display", "waiting", "overflow", "deck", "bag"];

/** @param {BoardData} data @param {string} id @returns {string} */
const placeName = (data, id) => section("aeroplanes", "places")[id] || (data.board?.destinations || []).find((/** @type {{id: string}} */ d) => d.id === id)?.name || id;
/** A region's name as the spec writes it (AE-1: Europe, Africa, Asia/Australasia, the Americas). @param {string} id */
const regionName = (id) => section("aeroplanes", "regions")[id] || id;

/** A passenger tile in words. @param {BoardData} data @param {number} id */
function tileInfo(data, id) {
  const t = (data.passengers?.tiles || []).find((/** @type {{id: number}} */ x) => x.id === id);
  if (!t) return word("tile_unknown", { id });
  return word(t.vp ? "tile_vp" : "tile", { place: placeName(data, t.destination), capacity: t.capacity, vp: t.vp });
}

/** An aircraft card in words. @param {BoardData} data @param {number} number */
function cardInfo(data, number) {
  const c = (data.aircraft?.cards || []).find((/** @type {{number: number}} */ x) => x.number === number);
  if (!c) return word("card_unknown", { number });
  return word(c.longHaul ? "card_long_haul" : "card", { name: c.name, stage: c.stage, capacity: c.capacity, vp: c.vp,
    tiles: word("airport_tiles", { n: c.airportTiles }) });
}

/**
 * The board of `view` (the interface of types.js Board).
 * @param {import("../types.js").AeroplanesView} view @param {import("../types.js").BoardData} data
 * @param {import("../types.js").Pick} pick @param {import("../types.js").Ctx<import("../types.js").AeroplanesView>} ctx
 * @returns {[SVGSVGElement, ...HTMLElement[]]}
 */
export function draw(view, data, pick, ctx) {
  const name = ctx.name;
  const board = data.board;
  /** @type {Record<string, [number, number]>} */
  const xy = Object.fromEntries(board.destinations.map((/** @type {{id: string, x: number, y: number}} */ d) =>
    [d.id, EUROPE_LAYOUT[d.id] || [d.x, d.y]]));
  const svg = svgRoot(W, H, word("map_title"));
  svg.append(s("rect", { x: 0, y: 0, width: W, height: H, class: "sea" }));
  const conns = s("g", { class: "connections" });
  for (const c of board.connections) {
    const [x1, y1] = xy[c.a];
    const [x2, y2] = xy[c.b];
    conns.append(s("line", { x1, y1, x2, y2, class: `connection${c.longHaul ? " long-haul" : ""}`, "data-ref": `leg:${c.a}:${c.b}`,
      stroke: COLOURS[c.colour] || c.colour }, s("title", {}, word(c.longHaul ? "connection_long_haul" : "connection",
      { a: placeName(data, c.a), b: placeName(data, c.b), colour: word(`colour_${c.colour}`) }))));
  }
  svg.append(conns);
  const dests = s("g", { class: "destinations" });
  for (const d of board.destinations) {
    const [x, y] = xy[d.id];
    const slots = view.slots?.[d.id] || [];
    const g = s("g", { class: "destination" });
    const w = Math.max(3, slots.length) * 20 + 8;
    g.append(s("rect", { x: x - w / 2, y: y - 14, width: w, height: 44, rx: 6,
      class: `dest-box hit${d.isStartCity ? " start-city" : ""}` }));
    g.append(text(x, y - 1, placeName(data, d.id), { class: "dest-name", "text-anchor": "middle" }));
    /** @type {string[]} */
    const owned = [];
    slots.forEach((/** @type {Slot} */ slot, /** @type {number} */ i) => {
      const sx = x - w / 2 + 4 + i * 15;
      const owner = slot && typeof slot === "object" ? slot : null;
      const fill = owner ? seatFill(owner.seat) : slot === "blocked" ? "#ced4da" : "#fff";
      g.append(s("rect", { x: sx, y: y + 4, width: 13, height: 13, class: "slot", fill }));
      if (!owner && slot !== "blocked") g.append(use("airport-tile", { x: sx + 1.5, y: y + 5.5, width: 10, height: 10, class: "slot-art" }));
      if (owner) {
        owned.push(STAGES[owner.stage] ? word("slot_stage", { player: name(owner.seat), stage: STAGES[owner.stage] })
          : word("slot_home", { player: name(owner.seat) }));
        g.append(text(sx + 6.5, y + 14, STAGES[owner.stage] || word("home_short"), { class: "slot-stage", "text-anchor": "middle" }));
      }
    });
    const label = word(owned.length ? "destination_owned" : "destination",
      { name: placeName(data, d.id), region: regionName(d.region), owners: owned.join(", ") });
    dests.append(target(g, d.id, label, pick));
  }
  svg.append(dests);
  svg.append(text(20, 30, word("caption", { era: view.era, bag: view.bag?.length ?? "?", deck: view.deck?.length ?? "?" }),
    { class: "board-caption" }));
  const display = h("section", { class: "panel", "aria-labelledby": "display-h" },
    h("h3", { id: "display-h" }, word("display")),
    h("ol", { class: "cards" }, (view.display || []).map((/** @type {{card: number, cost: number}} */ c) => {
      const ref = `card:${c.card}`;
      const label = word("display_card", { cost: c.cost, card: cardInfo(data, c.card) });
      return h("li", { "data-ref": ref }, pick.refs.has(ref)
        ? h("button", { type: "button", class: "card-pick", onclick: () => pick.onPick(ref, null) }, icon("aircraft-card"), label)
        : [icon("aircraft-card"), label]);
    })));
  return [svg, waitingArea(view, data, pick), display, eraTable(view, data)];
}

/**
 * The passenger waiting area (AE-9.1: a section per start city, in the board's order) and the Passenger Overflow
 * (AE-9.5), as HTML chips that wrap their words at the page's own size: a player reads it every turn, and drawn at
 * the map's scale it was 9 px with its chips cut off. A passenger some legal claim names is a button, as the aircraft
 * display's cards are.
 * @param {import("../types.js").AeroplanesView} view @param {BoardData} data @param {import("../types.js").Pick} pick
 * @returns {HTMLElement}
 */
function waitingArea(view, data, pick) {
  const chip = (/** @type {number} */ id) => {
    const ref = `tile:${id}`;
    const label = [icon("passenger"), tileInfo(data, id)];
    return h("li", { class: "pax-chip", "data-ref": ref }, pick.refs.has(ref)
      ? h("button", { type: "button", class: "pax-pick", onclick: () => pick.onPick(ref, null) }, label) : label);
  };
  const sections = data.board.waitingSections || Object.keys(view.waiting || {});
  const over = (view.overflow || []).filter(Boolean);
  return h("section", { class: "panel waiting-area", "aria-labelledby": "waiting-h" },
    h("h3", { id: "waiting-h" }, word("waiting_area")),
    h("div", { class: "waiting-sections" }, sections.map((/** @type {string} */ sec) => h("section", { class: "waiting-section" },
      h("h4", {}, placeName(data, sec)),
      // 0 marks an empty space of the section
      h("ul", { class: "pax-chips" }, (view.waiting?.[sec] || []).filter(Boolean).map(chip))))),
    h("h4", {}, word("overflow", { n: over.length, spaces: data.board.overflowSpaces })),
    over.length ? h("ul", { class: "pax-chips overflow" }, over.map(chip)) : null);
}

/**
 * The board's VPs/Era table (AE-13; the data's vp_table): each era's VP for first and second place in each market
 * and for the three best profits, the current era's row marked (docs/decisions/webclient-trial.md, item 6: the table was nowhere on screen).
 * @param {import("../types.js").AeroplanesView} view @param {import("../types.js").BoardData} data @returns {HTMLElement}
 */
function eraTable(view, data) {
  const eras = data.vp_table?.eras || [];
  const markets = Object.keys(eras[0]?.majority || {});
  const section = h("section", { class: "panel era-table", "aria-labelledby": "era-table-h" },
    showWithRules(h("h3", { id: "era-table-h" }), word("era_table"), null, rulesFor("aeroplanes/board/era_table")));
  section.append(h("div", { class: "table-wrap" }, h("table", { class: "grid-table" },
    h("thead", {}, h("tr", {}, h("th", { scope: "col" }, word("era_table_era")),
      markets.map((m) => h("th", { scope: "col" }, regionName(m))), h("th", { scope: "col" }, word("era_table_profit")))),
    h("tbody", {}, eras.map((/** @type {{era: number, majority: Record<string, number[]>, profit?: number[]}} */ e) => h("tr", { class: e.era === view.era ? "me" : "", "aria-current": e.era === view.era ? "true" : null },
      h("th", { scope: "row" }, word("era_table_row", { era: e.era })),
      markets.map((m) => h("td", {}, (e.majority[m] || []).join(" / "))),
      h("td", {}, (e.profit || []).join(" / "))))))),
  h("p", { class: "muted" }, word("era_table_note")));
  return section;
}
