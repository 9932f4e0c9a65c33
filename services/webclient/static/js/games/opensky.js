// OpenSky in the rulebook's words: formatters for the catalogue's templates, the panels' contents, the
// final score categories and the hints (which itineraries you can fly for this month's market).
import { h } from "../dom.js";
import { joinAnd, wordsOf } from "../i18n.js";

const word = wordsOf("opensky", "text");

const mapOf = (ctx) => ctx.data?.[ctx.view?.map] || ctx.data?.europe || { airports: [] };
const airportName = (code, ctx) => mapOf(ctx).airports.find((a) => a.code === code)?.name;

export function itineraryText(list) {
  const stops = (list || []).length - 2;
  const path = (list || []).join("-");
  if (stops <= 0) return `${path} nonstop`;
  return `${path} (${stops === 1 ? "one stop" : `${stops} stops`}, via ${joinAnd(list.slice(1, -1))})`;
}

export const formatters = {
  airport(v, o, ctx) { const n = airportName(v, ctx); return n ? `${n} (${v})` : String(v); },
  airports(v, o, ctx) { return joinAnd((v || []).map((c) => formatters.airport(c, o, ctx))); },
  route(v) { return String(v).replace("-", "–"); },
  itinerary(v) { return itineraryText(v); },
  cards(v) { return (v || []).length ? joinAnd(v) : "change credit only"; },
  fees(v) { return Number(v) === 1 ? "fee" : "fees"; },
  offers(v, o, ctx) {
    return (v || []).length ? v.map((x) => `${ctx.name(x.seat)} ${x.fare} on ${itineraryText(x.itinerary)}`).join("; ") : "no offers";
  },
  passers(v, o, ctx) { return (v || []).length ? `; ${joinAnd(v.map((s) => ctx.name(s)))} passed` : ""; },
  accepted(v) { return v ? "the market accepts" : "too dear, the booking fails"; },
  winners(v, o, ctx) {
    return joinAnd((v || []).map((x) => `${ctx.name(x.seat)} (${x.fare} on ${itineraryText(x.itinerary)}${x.ancillaries ? ` + ${x.ancillaries * 100} fees` : ""})`));
  },
};

export function variant(kind, o) {
  if (kind === "action" && o.type === "add_ancillaries" && !o.tokens) return "none";
  if (o.type === "lease" && !o.aircraft) return "none";
  if (o.type === "leased" && !o.aircraft) return "none";
  if (o.type === "aircraft_placed" && o.cross_border_token) return "cross_border";
  if (o.type === "pricing_started" && !(o.eligible || []).length) return "nobody";
  if (o.type === "my_bid" && o.pass) return "pass";
  return null;
}

const player = (view, seat) => (view.players || []).find((p) => p.seat === seat) || {};
const onBoard = (p) => Object.values(p.aircraft || {}).reduce((a, b) => a + b, 0);

export function score(view, seat) { return player(view, seat).score?.total ?? 0; }

/** Public resources of a seat for its player panel: [label, value] pairs. */
export function seatStats(view, seat) {
  const p = player(view, seat);
  return [["Cards in hand", (p.hand || []).length], ["Aircraft on routes", onBoard(p)], ["Ancillary tokens", p.ancillary_unused ?? 0],
    ["Flash Deal", p.flash_deal ? "ready" : "used"]];
}

/** The month, the market and what was rolled. */
export function tableInfo(view, ctx) {
  const out = [["Month", `${view.month_name || "—"} (season ${view.season ?? "—"})`], ["Roller", ctx.name(view.roller)]];
  if ((view.dice || []).length) out.push(["Rolled callsigns", joinAnd(view.dice.map((c) => `${c} (${view.callsigns?.[c] || "?"})`))]);
  if ((view.market || []).length === 2) out.push(["Market", `${formatters.airport(view.market[0], {}, ctx)} – ${formatters.airport(view.market[1], {}, ctx)}`]);
  if (view.lease) out.push(["Leasing after", view.lease.month_name]);
  return out;
}

/** My hand, table and the itineraries I can fly for this month's market (OS-9). */
export function myPanel(view, seat, ctx) {
  const p = player(view, seat);
  const out = [h("dl", { class: "kv" },
    h("dt", {}, "Fare cards in hand"), h("dd", {}, (p.hand || []).length ? (p.hand || []).join(", ") : "none"),
    h("dt", {}, "Won fares on the table"), h("dd", {}, (p.table || []).length ? `${p.table.join(", ")}${p.credit ? ` + credit ${p.credit}` : ""}` : p.credit ? `credit ${p.credit}` : "none"),
    h("dt", {}, "Aircraft off the board"), h("dd", {}, String(p.aircraft_supply ?? 0)),
    h("dt", {}, "Subsidy cubes"), h("dd", {}, String(p.subsidies ?? 0)),
    (p.hubs || []).length ? [h("dt", {}, "Hubs"), h("dd", {}, formatters.airports(p.hubs, {}, ctx))] : null)];
  if ((view.market || []).length === 2) {
    const mine = view.pricing?.valid_itineraries?.[String(seat)];
    out.push(h("h3", {}, `Your itineraries for ${view.market.join("–")}`));
    out.push(mine === undefined ? h("p", { class: "muted" }, "Shown when pricing starts (OS-9).")
      : mine.length ? h("ul", { class: "flyable" }, mine.map((it) => h("li", {}, itineraryText(it))))
        : h("p", {}, "You cannot fly this market this month (no valid itinerary, OS-9)."));
  }
  return out;
}

export function isChance(ev) { return ["dice_rolled", "price_check", "bids_revealed", "market_won", "market_not_travelled"].includes(ev.type); }

/** Score categories of the end screen (OS-19.2), from the final view's score breakdown; no tie-break (OS-19.4). */
export function final(view) {
  const part = (seat, key) => ({ value: player(view, seat).score?.[key] ?? null });
  return {
    categories: [{ key: "fares", label: word("final_fares") }, { key: "subsidies", label: word("final_subsidies") },
      { key: "ancillaries", label: word("final_ancillaries") }],
    values: (seat) => [part(seat, "fares"), part(seat, "subsidies"), part(seat, "ancillaries")],
    total: (seat) => score(view, seat),
    tiebreak: null,
  };
}

export const RULE_OF = { place_callsign: "OS-4", place_aircraft: "OS-6", place_hub: "OS-20", keep_hub: "OS-20", choose_market: "OS-8",
  bid: "OS-10", pass: "OS-10", flash_deal: "OS-12", decline_flash: "OS-12", add_ancillaries: "OS-14", lease: "OS-17" };

export function hint(action) {
  if (action.type === "bid" && action.itinerary.length > 2) return "A one-stop beats a nonstop only at half its fare or less (OS-11.2).";
  if (action.type === "add_ancillaries" && action.tokens) return `The price die (200–700) must reach your fare + ${action.tokens * 100} (OS-15).`;
  return null;
}

export function refLabel(ref, ctx) { return /^[A-Z]{3}$/.test(ref) ? formatters.airport(ref, {}, ctx) : formatters.route(ref); }

/** Board refs an event names, for the last-move highlight. */
export function refsOfEvent(ev) { return [ev.route, ev.airport, ev.to, ev.origin, ev.destination].filter(Boolean); }
