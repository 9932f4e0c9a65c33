// @ts-check
// OpenSky board: the map's airports and routes (lat/lon from the data file), aircraft tokens on routes,
// hubs, cross-border routes, callsign markers with subsidy cubes, and the month's dice and market.
// Words: the catalogue's opensky.board (country names under opensky.countries).
import { s, seatColour, seatFill, use } from "../dom.js";
import { section, ui, wordsOf } from "../i18n.js";
import { svgRoot, target, text } from "./common.js";

/** An airport of the printed map. @typedef {{code: string, name: string, lat: number, lon: number, country?: string}} Airport */
/** A side of the board: its airports and routes. @typedef {{airports: Airport[], routes: [string, string][]}} OpenskyMap */
/** A map point's board coordinates. @typedef {(a: {lat: number, lon: number}) => [number, number]} Projection */

const word = wordsOf("opensky", "board");

const W = 1000;
const H = 680;
const PAD = 50;

/** The board coordinates of the map's points, the whole map fitted in. @param {Airport[]} airports @returns {Projection} */
function projector(airports) {
  const lats = airports.map((a) => a.lat);
  const lons = airports.map((a) => a.lon);
  const k = Math.cos(((Math.min(...lats) + Math.max(...lats)) / 2) * Math.PI / 180);
  const x0 = Math.min(...lons) * k;
  const x1 = Math.max(...lons) * k;
  const y0 = Math.min(...lats);
  const y1 = Math.max(...lats);
  const scale = Math.min((W - 2 * PAD) / (x1 - x0), (H - 2 * PAD - 40) / (y1 - y0));
  const left = (W - (x1 - x0) * scale) / 2; // centre the map horizontally
  return (a) => [left + (a.lon * k - x0) * scale, H - PAD - (a.lat - y0) * scale];
}

// North America's borders (OS-21.2: every airport is printed in a country colour), simplified polylines of
// [lat, lon] points drawn with the airports' own projection, under the routes, never taking a click.
// The countries' names are words of the catalogue (opensky.countries, by code).
/** @type {Record<string, {colour: string, label: [number, number]}>} */
const COUNTRIES = {
  USA: { colour: "#3b6ea5", label: [43.6, -106] },
  CAN: { colour: "#b0413e", label: [50.4, -92] },
  MEX: { colour: "#2f7d4f", label: [22.6, -109] },
};
/** @param {string | null | undefined} name */
const monthName = (name) => (name ? section("opensky", "months")[name] ?? String(name) : "—");
/** @param {string} code @returns {string} */
const countryName = (code) => section("opensky", "countries")[code] || code;
const BORDERS = [
  { between: ["USA", "CAN"], points: [[49.0, -126], [49.0, -123.3], [49.0, -95.2], [48.3, -89.5], [47.4, -85.9],
    [46.5, -84.4], [45.9, -83.2], [44.2, -82.4], [43.0, -82.4], [42.3, -83.1], [42.0, -82.5], [42.6, -80.0],
    [42.9, -78.9], [43.3, -79.1], [43.6, -77.0], [44.2, -76.3], [45.0, -74.7], [45.0, -71.5], [45.3, -71.0],
    [46.4, -70.0], [47.4, -69.2], [47.1, -67.8], [45.6, -67.8], [44.8, -66.9]] },
  { between: ["USA", "MEX"], points: [[32.53, -117.12], [32.72, -114.72], [31.33, -111.07], [31.33, -108.21],
    [31.78, -108.21], [31.78, -106.53], [30.6, -105.0], [29.6, -104.5], [29.0, -103.1], [29.8, -101.4],
    [28.7, -100.5], [27.5, -99.5], [26.4, -99.1], [25.9, -97.15]] },
];

/** The countries a route joins when they differ ("USA–Canada"), else null (OS-21.3).
 * @param {Record<string, string | undefined>} countryOf @param {string} id */
export function crossBorder(countryOf, id) {
  const [a, b] = id.split("-").map((c) => countryOf[c]);
  return a && b && a !== b ? word("countries_pair", { a: countryName(a), b: countryName(b) }) : null;
}

/** @param {OpenskyMap} map @param {Projection} pos */
function drawBorders(map, pos) {
  const g = s("g", { class: "borders", "aria-hidden": "true" });
  for (const b of BORDERS) {
    const pts = b.points.map(([lat, lon]) => pos({ lat, lon }).map((v) => v.toFixed(1)).join(",")).join(" ");
    g.append(s("polyline", { points: pts, class: "border" }));
  }
  const present = new Set(map.airports.map((a) => a.country));
  for (const [code, c] of Object.entries(COUNTRIES)) {
    if (!present.has(code)) continue;
    const [x, y] = pos({ lat: c.label[0], lon: c.label[1] });
    g.append(text(x, y, countryName(code), { class: "country-name", fill: c.colour, "text-anchor": "middle" }));
  }
  return g;
}

/** @param {OpenskyMap} map */
function legend(map) {
  const codes = [...new Set(map.airports.map((a) => a.country || ""))].filter((c) => COUNTRIES[c]);
  const g = s("g", { class: "map-legend" });
  g.append(s("rect", { x: W - 250, y: H - 46 - codes.length * 20, width: 240, height: 40 + codes.length * 20, rx: 6,
    class: "legend-box" }));
  codes.forEach((c, i) => {
    const y = H - 32 - (codes.length - i) * 20;
    g.append(s("circle", { cx: W - 234, cy: y - 4, r: 6, class: "apt-country", fill: COUNTRIES[c].colour }),
      text(W - 220, y, word("legend_country", { country: countryName(c) }), { class: "small-label" }));
  });
  g.append(s("line", { x1: W - 242, y1: H - 28, x2: W - 226, y2: H - 28, class: "route-line xb" }),
    text(W - 220, H - 24, word("legend_cross_border"), { class: "small-label" }),
    text(W - 220, H - 11, word("legend_cross_border_token"), { class: "small-label" }));
  return g;
}

export const drawnKeys = ["map", "callsigns", "subsidy_cubes", "dice", "market"];

/**
 * The board of `view` (the interface of types.js Board).
 * @param {import("../types.js").OpenskyView} view @param {import("../types.js").BoardData} data
 * @param {import("../types.js").Pick} pick @param {import("../types.js").Ctx<import("../types.js").OpenskyView>} ctx
 * @returns {[SVGSVGElement, ...HTMLElement[]]}
 */
export function draw(view, data, pick, ctx) {
  const name = ctx.name;
  /** @type {OpenskyMap} */
  const map = data[view.map] || data.europe;
  const pos = projector(map.airports);
  const xy = Object.fromEntries(map.airports.map((a) => [a.code, pos(a)]));
  const names = Object.fromEntries(map.airports.map((a) => [a.code, section("opensky", "airports")[a.code] || a.name]));
  const mapKey = `choice_${view.map || "europe"}`; // the board side's name, as the lobby's option shows it
  const svg = svgRoot(W, H, word("map_title", { map: ui(mapKey) }));
  svg.append(s("rect", { x: 0, y: 0, width: W, height: H, class: "sea" }));
  /** @type {{seat: number, aircraft?: Record<string, number>, hubs?: string[], cross_border_routes?: string[]}[]} */
  const players = view.players || [];
  const countryOf = Object.fromEntries(map.airports.map((a) => [a.code, a.country]));
  const bordered = map.airports.some((a) => a.country);
  if (bordered) svg.append(drawBorders(map, pos));
  /** @type {Map<string, number[]>} */
  const tokensOn = new Map(); // route -> seats whose Cross-border token is on it
  players.forEach((p) => (p.cross_border_routes || []).forEach((r) => tokensOn.set(r, [...(tokensOn.get(r) || []), p.seat])));
  const routes = s("g", { class: "routes" });
  // short routes last, so that they lie on top: a longer route's hit area never takes a short route's click
  const len = (/** @type {[string, string]} */ [a, b]) => Math.hypot(xy[a][0] - xy[b][0], xy[a][1] - xy[b][1]);
  const ordered = [...map.routes].sort((r1, r2) => len(r2) - len(r1));
  for (const [a, b] of ordered) {
    const id = [a, b].sort().join("-");
    const [x1, y1] = xy[a];
    const [x2, y2] = xy[b];
    const xb = bordered ? crossBorder(countryOf, id) : null;
    const g = s("g", { class: "route" });
    g.append(s("line", { x1, y1, x2, y2, class: "route-hit hit" }),
      s("line", { x1, y1, x2, y2, class: `route-line${xb ? " xb" : ""}` }));
    (tokensOn.get(id) || []).forEach((seat) => {
      g.append(s("line", { x1, y1, x2, y2, class: "cross-border", stroke: seatColour(seat) }));
    });
    // aircraft tokens: one small plane marker per aircraft, spread along the route
    /** @type {number[]} */
    const tokens = [];
    players.forEach((p) => { for (let i = 0; i < (p.aircraft?.[id] || 0); i++) tokens.push(p.seat); });
    tokens.forEach((seat, i) => {
      const t = (i + 1) / (tokens.length + 1);
      const [cx, cy] = [x1 + (x2 - x1) * t, y1 + (y2 - y1) * t];
      const angle = (Math.atan2(y2 - y1, x2 - x1) * 180) / Math.PI + 90; // the plane points along the route
      g.append(s("g", { class: "aircraft-token" }, s("title", {}, word("aircraft_token", { player: name(seat), route: id })),
        s("circle", { cx, cy, r: 9, class: "aircraft", fill: seatFill(seat) }),
        use("plane", { x: cx - 6, y: cy - 6, width: 12, height: 12, class: "token-art",
          transform: `rotate(${angle.toFixed(0)} ${cx.toFixed(1)} ${cy.toFixed(1)})` })));
    });
    const held = (tokensOn.get(id) || []).map(name);
    const label = [word("route", { route: id }),
      xb ? word(held.length ? "route_cross_border_held" : "route_cross_border", { countries: xb, players: held.join(", ") }) : null,
      tokens.length ? word("route_aircraft", { players: tokens.map(name).join(", ") }) : null];
    routes.append(target(g, id, label.filter(Boolean).join(", "), pick));
  }
  svg.append(routes);
  /** @type {Map<string, number[]>} */
  const hubs = new Map();
  players.forEach((p) => (p.hubs || []).forEach((a) => hubs.set(a, [...(hubs.get(a) || []), p.seat])));
  /** @type {Record<string, string>} */
  const callsigns = view.callsigns || {};
  const callsignAt = Object.fromEntries(Object.entries(callsigns).map(([c, a]) => [a, c]));
  /** @type {Set<string>} */
  const marketAirports = new Set([...(view.market || []),
    ...(view.dice || []).map((/** @type {string} */ c) => callsigns[c]).filter(Boolean)]);
  const airports = s("g", { class: "airports" });
  for (const a of map.airports) {
    const [x, y] = xy[a.code];
    const g = s("g", { class: "airport" });
    (hubs.get(a.code) || []).forEach((seat, i) => g.append(s("rect", { x: x - 11 - 3 * i, y: y - 11 - 3 * i,
      width: 22 + 6 * i, height: 22 + 6 * i, class: "hub", stroke: seatColour(seat) }),
      use("hub", { x: x - 30 - 14 * i, y: y - 30, width: 16, height: 16, class: "hub-art", color: seatColour(seat) })));
    if (a.country && COUNTRIES[a.country]) { // the airport's country colour (OS-21.2), a ring around the dot
      g.append(s("circle", { cx: x, cy: y, r: 12, class: "apt-country", fill: COUNTRIES[a.country].colour }));
    }
    g.append(s("circle", { cx: x, cy: y, r: 8, class: marketAirports.has(a.code) ? "apt market hit" : "apt hit" }));
    g.append(text(x + 10, y - 8, a.code, { class: "apt-code" }));
    const cs = callsignAt[a.code];
    if (cs) {
      // subsidy_cubes: the seat whose subsidy cube sits on this callsign airport, -1 when none (OS-7)
      const owner = view.subsidy_cubes?.[a.code] ?? -1;
      g.append(use("callsign", { x: x + 8, y: y + 5, width: 13, height: 13, class: "callsign-art" }),
        text(x + 21, y + 16, cs, { class: "callsign" }));
      if (owner >= 0) g.append(s("rect", { x: x + 25 + cs.length * 7, y: y + 6, width: 11, height: 11, class: "cube",
        fill: seatFill(owner) }, s("title", {}, word("subsidy_cube", { player: name(owner) }))));
    }
    const label = [word("airport", { code: a.code, name: names[a.code] }), a.country ? countryName(a.country) : null,
      hubs.has(a.code) ? word("hub_of", { players: (hubs.get(a.code) || []).map(name).join(", ") }) : null,
      cs ? word("callsign", { callsign: cs }) : null,
      (view.subsidy_cubes?.[a.code] ?? -1) >= 0 ? word("subsidy_cube", { player: name(view.subsidy_cubes[a.code]) }) : null];
    airports.append(target(g, a.code, label.filter(Boolean).join(", "), pick));
  }
  svg.append(airports);
  if (bordered) svg.append(legend(map));
  const info = [word("caption", { month: monthName(view.month_name), season: view.season ?? "?" })];
  if ((view.market || []).length === 2) info.push(word("caption_market", { market: view.market.join("–") }));
  svg.append(text(PAD, 30, info.join(" · "), { class: "board-caption" }));
  return [svg];
}
