// OpenSky board: the map's airports and routes (lat/lon from the data file), aircraft tokens on routes,
// hubs, cross-border routes, callsign markers with subsidy cubes, and the month's dice and market.
import { s, seatColour, seatFill } from "../dom.js";
import { svgRoot, target, text } from "./common.js";

const W = 1000;
const H = 680;
const PAD = 50;

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

export const drawnKeys = ["map", "callsigns", "subsidy_cubes", "dice", "market"];

export function draw(view, data, pick, ctx) {
  const name = ctx?.name || ((seat) => `Player ${seat + 1}`);
  const map = data[view.map] || data.europe;
  const pos = projector(map.airports);
  const xy = Object.fromEntries(map.airports.map((a) => [a.code, pos(a)]));
  const names = Object.fromEntries(map.airports.map((a) => [a.code, a.name]));
  const svg = svgRoot(W, H, `OpenSky ${map.title} map`);
  svg.append(s("rect", { x: 0, y: 0, width: W, height: H, class: "sea" }));
  const players = view.players || [];
  const crossBorder = new Map();
  players.forEach((p) => (p.cross_border_routes || []).forEach((r) => crossBorder.set(r, p.seat)));
  const routes = s("g", { class: "routes" });
  // short routes last, so that they lie on top: a longer route's hit area never takes a short route's click
  const len = ([a, b]) => Math.hypot(xy[a][0] - xy[b][0], xy[a][1] - xy[b][1]);
  const ordered = [...map.routes].sort((r1, r2) => len(r2) - len(r1));
  for (const [a, b] of ordered) {
    const id = [a, b].sort().join("-");
    const [x1, y1] = xy[a];
    const [x2, y2] = xy[b];
    const g = s("g", { class: "route" });
    g.append(s("line", { x1, y1, x2, y2, class: "route-hit hit" }), s("line", { x1, y1, x2, y2, class: "route-line" }));
    if (crossBorder.has(id)) {
      g.append(s("line", { x1, y1, x2, y2, class: "cross-border", stroke: seatColour(crossBorder.get(id)) }));
    }
    // aircraft tokens: one small plane marker per aircraft, spread along the route
    const tokens = [];
    players.forEach((p) => { for (let i = 0; i < (p.aircraft?.[id] || 0); i++) tokens.push(p.seat); });
    tokens.forEach((seat, i) => {
      const t = (i + 1) / (tokens.length + 1);
      g.append(s("circle", { cx: x1 + (x2 - x1) * t, cy: y1 + (y2 - y1) * t, r: 7, class: "aircraft",
        fill: seatFill(seat) }, s("title", {}, `${name(seat)}'s aircraft on ${id}`)));
    });
    const owners = tokens.length ? `, aircraft of ${tokens.map(name).join(", ")}` : "";
    routes.append(target(g, id, `Route ${id}${owners}`, pick));
  }
  svg.append(routes);
  const hubs = new Map();
  players.forEach((p) => (p.hubs || []).forEach((a) => hubs.set(a, [...(hubs.get(a) || []), p.seat])));
  const callsignAt = Object.fromEntries(Object.entries(view.callsigns || {}).map(([c, a]) => [a, c]));
  const marketAirports = new Set([...(view.market || []), ...(view.dice || []).map((c) => view.callsigns?.[c]).filter(Boolean)]);
  const airports = s("g", { class: "airports" });
  for (const a of map.airports) {
    const [x, y] = xy[a.code];
    const g = s("g", { class: "airport" });
    (hubs.get(a.code) || []).forEach((seat, i) => g.append(s("rect", { x: x - 11 - 3 * i, y: y - 11 - 3 * i,
      width: 22 + 6 * i, height: 22 + 6 * i, class: "hub", stroke: seatColour(seat) })));
    g.append(s("circle", { cx: x, cy: y, r: 8, class: marketAirports.has(a.code) ? "apt market hit" : "apt hit" }));
    g.append(text(x + 10, y - 8, a.code, { class: "apt-code" }));
    const cs = callsignAt[a.code];
    if (cs) {
      // subsidy_cubes: the seat whose subsidy cube sits on this callsign airport, -1 when none (OS-7)
      const owner = view.subsidy_cubes?.[a.code] ?? -1;
      g.append(text(x + 10, y + 16, cs, { class: "callsign" }));
      if (owner >= 0) g.append(s("rect", { x: x + 14 + cs.length * 7, y: y + 6, width: 11, height: 11, class: "cube",
        fill: seatFill(owner) }, s("title", {}, `${name(owner)}'s subsidy cube`)));
    }
    const extra = [hubs.has(a.code) ? `hub of ${hubs.get(a.code).map(name).join(", ")}` : "",
      cs ? `callsign ${cs}` : "", (view.subsidy_cubes?.[a.code] ?? -1) >= 0 ? `${name(view.subsidy_cubes[a.code])}'s subsidy cube` : ""].filter(Boolean).join(", ");
    airports.append(target(g, a.code, `${a.code} ${names[a.code]}${extra ? `, ${extra}` : ""}`, pick));
  }
  svg.append(airports);
  const info = [`${view.month_name || ""} · season ${view.season ?? "?"}`];
  if ((view.market || []).length === 2) info.push(`market ${view.market.join("–")}`);
  svg.append(text(PAD, 30, info.join(" · "), { class: "board-caption" }));
  return [svg];
}
