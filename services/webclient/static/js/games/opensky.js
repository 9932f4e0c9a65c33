// @ts-check
// OpenSky in the rulebook's words: formatters for the catalogue's templates, the panels' contents, the
// final score categories and the hints (which itineraries you can fly for this month's market).
// Words: the catalogue's opensky.text (formatters, panels, hints, end screen) and opensky.state (labels).
import { h } from "../dom.js";
import { joinAnd, section, wordsOf } from "../i18n.js";

/** @typedef {import("../types.js").OpenskyView} View */
/** @typedef {import("../types.js").Ctx<View>} Ctx */
/** @typedef {import("../types.js").GameEvent} GameEvent */
/** @typedef {import("../types.js").Action} Action */
/** @typedef {import("../types.js").Presenter<View>} Presenter */

const word = wordsOf("opensky", "text");
const label = wordsOf("opensky", "state");

/** @param {Ctx} ctx @returns {{airports: {code: string, name: string}[]}} */
const mapOf = (ctx) => ctx.data?.[ctx.view?.map] || ctx.data?.europe || { airports: [] };
/** An airport's name in the page's language (the catalogue's opensky.airports: "Лондон Хитроу"), else the map's.
 * @param {string} code @param {Ctx} ctx */
export const airportName = (code, ctx) => section("opensky", "airports")[code] || mapOf(ctx).airports.find((a) => a.code === code)?.name;
/** A month's name in the catalogue's words (the engine names them, April to March). @param {string | null | undefined} name */
const monthName = (name) => (name ? section("opensky", "months")[name] ?? String(name) : "—");

/** An itinerary in words (nonstop, one stop, N stops). @param {string[] | null | undefined} list */
export function itineraryText(list) {
  const stops = (list || []).length - 2;
  const path = (list || []).join("-");
  if (stops <= 0) return word("itinerary_nonstop", { path });
  return word(stops === 1 ? "itinerary_one_stop" : "itinerary_stops", { path, stops, via: joinAnd((list || []).slice(1, -1)) });
}

/** @type {Presenter["formatters"]} */
export const formatters = {
  airport(v, o, ctx) { const n = airportName(v, ctx); return n ? `${n} (${v})` : String(v); },
  airports(v, o, ctx) { return joinAnd((v || []).map((/** @type {string} */ c) => formatters.airport(c, o, ctx))); },
  route(v) { return String(v).replace("-", "–"); },
  itinerary(v) { return itineraryText(v); },
  cards(v) { return (v || []).length ? joinAnd(v) : word("credit_only"); },
  offers(v, o, ctx) {
    return (v || []).length ? v.map((/** @type {{seat: number, fare: number, itinerary: string[]}} */ x) => word("offer", { player: ctx.name(x.seat), fare: x.fare, itinerary: itineraryText(x.itinerary) })).join("; ")
      : word("no_offers");
  },
  passers(v, o, ctx) { return (v || []).length ? word("passers", { players: joinAnd(v.map((/** @type {number} */ s) => ctx.name(s))) }) : ""; },
  accepted(v) { return word(v ? "accepted" : "refused"); },
  month(v) { return monthName(v); },
  reason(v) { return section("opensky", "reasons")[v] ?? String(v); }, // the engine's reason, in the catalogue's words
  winners(v, o, ctx) {
    return joinAnd((v || []).map((/** @type {{seat: number, fare: number, itinerary: string[], ancillaries?: number}} */ x) => word(x.ancillaries ? "winner_fees" : "winner",
      { player: ctx.name(x.seat), fare: x.fare, itinerary: itineraryText(x.itinerary), fees: (x.ancillaries || 0) * 100 })));
  },
};

/** @type {Presenter["variant"]} */
export function variant(kind, o) {
  if (kind === "action" && o.type === "add_ancillaries" && !o.tokens) return "none";
  if (o.type === "lease" && !o.aircraft) return "none";
  if (o.type === "leased" && !o.aircraft) return "none";
  if (o.type === "aircraft_placed" && o.cross_border_token) return "cross_border";
  if (o.type === "pricing_started" && !(o.eligible || []).length) return "nobody";
  if (o.type === "my_bid" && o.pass) return "pass";
  return null;
}

/** A seat's player in the view ({} before the view has it). @param {View} view @param {number} seat @returns {Record<string, any>} */
const player = (view, seat) => (view.players || []).find((/** @type {{seat: number}} */ p) => p.seat === seat) || {};
/** @param {Record<string, any>} p @returns {number} */
const onBoard = (p) => Object.values(p.aircraft || {}).reduce((a, b) => a + b, 0);

/** @param {View} view @param {number} seat @returns {number} */
export function score(view, seat) { return player(view, seat).score?.total ?? 0; }

/** Public resources of a seat for its player card: [label, value] pairs.
 * @param {View} view @param {number} seat @returns {[string, string | number][]} */
export function seatStats(view, seat) {
  const p = player(view, seat);
  return [[label("hand_count"), (p.hand || []).length], [label("aircraft_on_board"), onBoard(p)],
    [label("ancillary_unused"), p.ancillary_unused ?? 0], [label("flash_deal"), word(p.flash_deal ? "ready" : "used")]];
}

/** The month, the market and what was rolled; the first pair heads the status bar. While a month's leasing runs the
 * engine's month marker has moved on already (OS-17.1) but the month being closed is the one the players are in:
 * "October, end of month: leasing (season 1)", never "November (season 1)" before the season reset (OS-18).
 * @param {View} view @param {Ctx} ctx @returns {[string, string | number][]} */
export function tableInfo(view, ctx) {
  const season = view.season ?? "—";
  const month = view.lease ? word("month_leasing", { month: monthName(view.lease.month_name), season })
    : word("month_season", { month: monthName(view.month_name), season });
  /** @type {[string, string | number][]} */
  const out = [[label("month"), month],
    [label("roller"), ctx.name(view.roller)]];
  if ((view.dice || []).length) out.push([label("dice"), joinAnd(view.dice.map((/** @type {string} */ c) => `${c} (${view.callsigns?.[c] || "?"})`))]);
  if ((view.market || []).length === 2) out.push([label("market"), `${formatters.airport(view.market[0], {}, ctx)} – ${formatters.airport(view.market[1], {}, ctx)}`]);
  if (view.lease) out.push([label("lease"), monthName(view.lease.month_name)]);
  return out;
}

/** My hand, table and the itineraries I can fly for this month's market (OS-9).
 * @param {View} view @param {number} seat @param {Ctx} ctx @returns {(Node | null)[]} */
export function myPanel(view, seat, ctx) {
  const p = player(view, seat);
  const out = [h("dl", { class: "kv" },
    h("dt", {}, label("hand")), h("dd", {}, (p.hand || []).length ? (p.hand || []).join(", ") : word("none")),
    h("dt", {}, label("table")), h("dd", {}, (p.table || []).length
      ? (p.credit ? word("table_credit", { fares: p.table.join(", "), credit: p.credit }) : p.table.join(", "))
      : p.credit ? word("credit", { credit: p.credit }) : word("none")),
    h("dt", {}, label("aircraft_supply")), h("dd", {}, String(p.aircraft_supply ?? 0)),
    h("dt", {}, label("subsidies")), h("dd", {}, String(p.subsidies ?? 0)),
    (p.hubs || []).length ? [h("dt", {}, label("hubs")), h("dd", {}, formatters.airports(p.hubs, {}, ctx))] : null)];
  if ((view.market || []).length === 2) {
    const mine = view.pricing?.valid_itineraries?.[String(seat)];
    out.push(h("h3", {}, word("itineraries_for", { market: view.market.join("–") })));
    out.push(mine === undefined ? h("p", { class: "muted" }, word("itineraries_later"))
      : mine.length ? h("ul", { class: "flyable" }, mine.map((/** @type {string[]} */ it) => h("li", {}, itineraryText(it))))
        : h("p", {}, word("itineraries_none")));
  }
  return out;
}

/** Above the actions: which of my hubs the hub decision is about (OS-20.3: the first or the second; OS-20.7: at the
 * season reset, the airport it stands on), from the engine's `hub_turn`. @param {View} view @param {number | null} seat
 * @param {Ctx} ctx */
export function actionNote(view, seat, ctx) {
  const turn = view.hub_turn;
  if (!turn || turn.seat !== seat) return null;
  const which = turn.hub === 1 ? "first" : "second";
  return turn.airport ? word("hub_move_note", { which, airport: formatters.airport(turn.airport, {}, ctx) })
    : word("hub_place_note", { which });
}

/** OpenSky's end screen has no table beyond the categories'. */
export function finalExtra() { return null; }

/** @param {GameEvent} ev */
export function isChance(ev) { return ["dice_rolled", "price_check", "bids_revealed", "market_won", "market_not_travelled"].includes(ev.type); }

/** OpenSky's chance is dice (the passenger dice, the price die) and sealed bids revealed: "Dice and reveals". */
export function chanceHeading() { return null; }

/** Score categories of the end screen (OS-19.2), from the final view's score breakdown; no tie-break (OS-19.4). */
/** @param {View} view @returns {import("../types.js").FinalTable} */
export function final(view) {
  const part = (/** @type {number} */ seat, /** @type {string} */ key) => ({ value: player(view, seat).score?.[key] ?? null });
  return {
    categories: [{ key: "fares", label: word("final_fares") }, { key: "subsidies", label: word("final_subsidies") },
      { key: "ancillaries", label: word("final_ancillaries") }],
    values: (/** @type {number} */ seat) => [part(seat, "fares"), part(seat, "subsidies"), part(seat, "ancillaries")],
    total: (/** @type {number} */ seat) => score(view, seat),
    tiebreak: null,
  };
}

/** @type {Record<string, string>} */
export const RULE_OF = { place_callsign: "OS-4", place_aircraft: "OS-6", place_hub: "OS-20", keep_hub: "OS-20", choose_market: "OS-8",
  bid: "OS-10", pass: "OS-10", flash_deal: "OS-12", decline_flash: "OS-12", add_ancillaries: "OS-14", lease: "OS-17" };

/** A button's second line: at the season reset which airport the hub stays at or moves from (OS-20.7); a one-stop
 * bid's half-fare rule; the price die an ancillary fee brings. @param {Action} action @param {Ctx} ctx */
export function hint(action, ctx) {
  const at = ctx.view?.hub_turn?.airport;
  if (at && action.type === "keep_hub") return word("hint_keep_hub", { airport: formatters.airport(at, {}, ctx) });
  if (at && action.type === "place_hub") return word("hint_move_hub", { airport: formatters.airport(at, {}, ctx) });
  if (action.type === "bid" && action.itinerary.length > 2) return word("hint_one_stop");
  if (action.type === "add_ancillaries" && action.tokens) return word("hint_price_die", { fees: action.tokens * 100 });
  return null;
}

/** A route under the airport it starts from ("Amsterdam (AMS)"): the draft offers some 50 routes (OS-6).
 * @param {Action} action @param {Ctx} ctx */
export function choiceGroup(action, ctx) {
  return action.type === "place_aircraft" && typeof action.route === "string" ? formatters.airport(action.route.split("-")[0], {}, ctx) : null;
}

/** OpenSky lists its choices in the engine's order. @returns {number | null} */
export function rank() { return null; }

/** No choice of OpenSky flies a route to show beforehand. @returns {string[]} */
export function previewRefs() { return []; }

/** OpenSky has no decision the page makes for the player. @type {string[]} */
export const PLAY_WHEN_ONLY = [];

/** @param {string} ref @param {Ctx} ctx */
export function refLabel(ref, ctx) { return /^[A-Z]{3}$/.test(ref) ? formatters.airport(ref, {}, ctx) : formatters.route(ref, {}, ctx); }

/** Board refs an event names, for the last-move highlight. @param {GameEvent} ev @returns {string[]} */
export function refsOfEvent(ev) { return [ev.route, ev.airport, ev.to, ev.origin, ev.destination].filter(Boolean); }
