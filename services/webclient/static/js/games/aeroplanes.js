// @ts-check
// Aeroplanes: Aviation Ascendant in the rulebook's words: destination and aircraft names instead of ids, the
// Risk roll a route needs (AE-8.9 to AE-8.12) before you commit, panels and the final score categories.
// Words: the catalogue's aeroplanes.text (formatters, panels, hints, end screen) and aeroplanes.state (labels).
import { h, icon } from "../dom.js";
import { joinAnd, money, section, wordsOf } from "../i18n.js";

/** @typedef {import("../types.js").AeroplanesView} View */
/** @typedef {import("../types.js").Ctx<View>} Ctx */

/** The destination of the placement or route being declared (the engine's `pending`), if any. @param {Ctx} ctx */
const pendingTarget = (ctx) => { const p = ctx.view?.pending; return p && "target" in p ? p.target : undefined; };
/** @typedef {import("../types.js").GameEvent} GameEvent */
/** @typedef {import("../types.js").Action} Action */
/** @typedef {import("../types.js").Presenter<View>} Presenter */
/** A destination of the printed board. @typedef {{id: string, name: string, region: string, incomeModifier?: number}} Destination */
/** A printed connection. @typedef {{a: string, b: string, colour: string, longHaul?: boolean, special?: boolean, dangerousRolls?: number[]}} Connection */
/** An aircraft card. @typedef {{number: number, name: string, vp?: number, longHaul?: boolean}} AircraftCard */
/** A passenger tile. @typedef {{id: number, destination: string, capacity: number, vp?: number}} PassengerTile */
/** The Risk rolls of a route: [threshold, rival bonus] per roll. @typedef {[number, number][]} Rolls */
/** A player's aircraft in the view. @typedef {{card: number, free_capacity: number, capacity: number, airport_tiles: number, in_service?: boolean, passengers?: number[]}} OwnAircraft */

const word = wordsOf("aeroplanes", "text");
const label = wordsOf("aeroplanes", "state");
const STAGES = [null, "I", "II", "III"]; // as the data files print them; stage 0 is the home airport
const SKULL = "☠";
/** @param {string} id @param {Ctx} ctx @returns {Destination | undefined} */
const dest = (id, ctx) => (ctx.data?.board?.destinations || []).find((/** @type {Destination} */ d) => d.id === id);
/** A destination's name in the language (the catalogue's aeroplanes.places; the data's English name otherwise).
 * @param {string} id @param {Ctx} ctx @returns {string} */
const placeName = (id, ctx) => section("aeroplanes", "places")[id] || dest(id, ctx)?.name || String(id);
/** @param {number} n @param {Ctx} ctx @returns {AircraftCard | undefined} */
const card = (n, ctx) => (ctx.data?.aircraft?.cards || []).find((/** @type {AircraftCard} */ c) => c.number === n);
/** @param {number} id @param {Ctx} ctx @returns {PassengerTile | undefined} */
const tile = (id, ctx) => (ctx.data?.passengers?.tiles || []).find((/** @type {PassengerTile} */ t) => t.id === id);
/** A market's or region's name as the spec writes it (AE-1, AE-13.2: Europe, Africa, Asia/Australasia).
 * @param {string} id @returns {string} */
const regionName = (id) => section("aeroplanes", "regions")[id] || id;
/** An Advantage tile's name in the rulebook's words (the catalogue's aeroplanes.advantages, by the data's id).
 * @param {string} type @param {Ctx} ctx @returns {string} */
function advantageName(type, ctx) {
  const t = (ctx.data?.advantages?.types || []).find((/** @type {{type: string, id: string}} */ x) => x.type === type || x.id === type);
  return (t && section("aeroplanes", "advantages")[t.id]) || t?.name || String(type);
}

/** The connection flown from a to b (a special connection only outward), if any.
 * @param {string} a @param {string} b @param {Ctx} ctx @returns {Connection | undefined} */
function connection(a, b, ctx) {
  return (ctx.data?.board?.connections || []).find((/** @type {Connection} */ c) => (c.a === a && c.b === b) || (!c.special && c.a === b && c.b === a));
}
/** @param {Connection} c @returns {number[]} */
const legRolls = (c) => c.dangerousRolls || /** @type {Record<string, number[]>} */ ({ white: [], red: [12], black: [14] })[c.colour] || [];
/** @param {string} place @param {Ctx} ctx @returns {boolean} */
const rivalAt = (place, ctx) => (ctx.view?.slots?.[place] || []).some((/** @type {{seat: number} | string | null} */ s) => s && typeof s === "object" && s.seat !== ctx.me);

/** [[threshold, bonus], ...] of a route from source (via) to target, as the engine computes them.
 * @param {string} source @param {string | null | undefined} via @param {string | undefined} target (undefined: no
 * placement is pending, so there is no route) @param {Ctx} ctx
 * @returns {Rolls | null} */
export function routeRolls(source, via, target, ctx) {
  if (target === undefined) return null;
  const rivalT = rivalAt(target, ctx);
  if (!via) {
    const c = connection(source, target, ctx);
    return c ? legRolls(c).map((t) => /** @type {[number, number]} */ ([t, rivalT ? 2 : 0])) : null;
  }
  const c1 = connection(source, via, ctx);
  const c2 = connection(via, target, ctx);
  if (!c1 || !c2) return null;
  let first = legRolls(c1);
  let second = legRolls(c2);
  if (!first.length && !second.length) second = [10];
  const b1 = rivalAt(via, ctx) && rivalT ? 2 : 0;
  return [...first.map((t) => /** @type {[number, number]} */ ([t, b1])),
    ...second.map((t) => /** @type {[number, number]} */ ([t, rivalT ? 2 : 0]))];
}

/** How hard a route's rolls are (lower is easier): the sum of the totals its rolls need, each less its rival bonus, so
 * no roll is easiest and each roll more, or higher, is harder. The targets' "easiest route" hint and the order of the
 * route choices both weigh routes by it. @param {Rolls | null | undefined} rolls @returns {number} */
export const routeWeight = (rolls) => (rolls ? rolls.reduce((a, [t, b]) => a + t - b, 0) : Infinity);

/** The rolls a route needs, in words. @param {Rolls | null | undefined} rolls */
export function rollsText(rolls) {
  if (!rolls) return word("route_unknown");
  if (!rolls.length) return word("no_roll");
  const list = rolls.map(([n]) => `${n}+`).reduce((a, b) => word("then", { first: a, next: b }));
  const bonus = rolls.some(([, b]) => b);
  return word(bonus ? "rolls_needed_bonus" : "rolls_needed", { rolls: list });
}

/** @type {Presenter["formatters"]} */
export const formatters = {
  /** An era's scoring by source (AE-13): each market's and the profit's VP per player, not only the totals. */
  era_awards(v, o, ctx) {
    const parts = Object.entries(/** @type {Record<string, number[] | null>} */ (v || {})).map(([m, perSeat]) => {
      const who = (perSeat || []).map((vp, seat) => (vp ? `${ctx.name(seat)} ${vp}` : null)).filter(Boolean);
      return who.length ? word("era_award", { what: m === "profit" ? word("era_profit") : regionName(m), who: who.join(", ") }) : null;
    }).filter(Boolean);
    return parts.length ? parts.join("; ") : word("era_no_awards");
  },
  place(v, o, ctx) { return placeName(v, ctx); },
  section(v, o, ctx) { return v === "overflow" ? word("overflow") : word("section", { place: placeName(v, ctx) }); },
  aircraft(v, o, ctx) { return card(v, ctx)?.name || word("aircraft_unknown", { number: v }); },
  aircraft_s(v, o, ctx) { return word("aircraft_s", { aircraft: formatters.aircraft(v, o, ctx) }); },
  aircraft_list(v, o, ctx) { return (v || []).length ? joinAnd(v.map((/** @type {number} */ n) => formatters.aircraft(n, o, ctx))) : word("no_cards"); },
  cost(v, o, ctx) { const c = (ctx.view?.display || []).find((/** @type {{card: number, cost: number}} */ d) => d.card === v)?.cost; return c === undefined ? "?" : money(c); },
  kind(v) { return section("aeroplanes", "kinds")[v] || String(v); },
  kind_verb(v) { const k = section("aeroplanes", "kinds")[v]; return k ? k.charAt(0).toLowerCase() + k.slice(1) : String(v); },
  advantage(v, o, ctx) { return advantageName(v, ctx); },
  advantages(v, o, ctx) { return (v || []).length ? joinAnd(v.map((/** @type {string} */ k) => advantageName(k, ctx))) : word("no_advantage"); },
  passenger(v, o, ctx) {
    const x = tile(v, ctx);
    if (!x) return word("passenger_unknown", { id: v });
    return word(x.vp ? "passenger_vp" : "passenger", { place: placeName(x.destination, ctx), vp: x.vp,
      seats: word("seats", { n: x.capacity }) });
  },
  route_rolls(v, o, ctx) { return rollsText(routeRolls(o.source, o.via, pendingTarget(ctx), ctx)); },
  rolls_needed(v) { return rollsText(v); },
  via(v, o, ctx) { return v ? word("via", { place: formatters.place(v, o, ctx) }) : word("direct"); },
  risk_dice(v) { return (v || []).map((/** @type {number} */ d) => (d === 0 ? SKULL : String(d))).join(" "); },
  dice_total(v) { return String((v || []).reduce((/** @type {number} */ a, /** @type {number} */ b) => a + b, 0)); },
  bonus(v) { return v ? word("rival_bonus", { bonus: v }) : ""; },
  stage(v) { return Number(v) === 0 ? word("stage_home") : STAGES[v] ?? String(v); },
};

/** @type {Presenter["variant"]} */
export function variant(kind, o, ctx) {
  if (kind !== "action") return null;
  if (o.type === "buy_aircraft" && o.extra) return "extra";
  if (o.type === "choose_route" && o.via) return "via";
  if (o.type === "place_tile" && o.replace !== null && o.replace !== undefined) return o.replace === ctx.me ? "upgrade" : "replace";
  return null;
}

/** A seat's player in the view ({} before the view has it). @param {View} view @param {number} seat @returns {Record<string, any>} */
const player = (view, seat) => (view.players || []).find((/** @type {{seat: number}} */ p) => p.seat === seat) || {};

/** @param {View} view @param {number} seat @returns {number} */
export function score(view, seat) { return player(view, seat).vp ?? 0; }

/** A player card's key numbers. @param {View} view @param {number} seat @param {Ctx} ctx @returns {[string, string | number][]} */
export function seatStats(view, seat, ctx) {
  const p = player(view, seat);
  const tiles = Object.values(/** @type {Record<string, number>} */ (p.supply || {})).reduce((a, b) => a + b, 0);
  return [[label("money"), word("money", { money: p.money ?? 0 })], [label("home"), p.home ? formatters.place(p.home, {}, ctx) : "—"],
    [label("aircraft"), (p.aircraft || []).length], [label("supply"), tiles], [label("engine_failures"), p.engine_failures ?? 0]];
}

/** "On the table"; the first pair heads the status bar. @param {View} view @param {Ctx} ctx @returns {[string, string | number][]} */
export function tableInfo(view, ctx) {
  const adv = Object.entries(view.advantage_supply || {}).map(([k, n]) => `${advantageName(k, ctx)} ${n}`).join(", ");
  return [[label("era"), view.era], [label("first_player"), ctx.name(view.first_player)], [label("subsidy_notes"), view.subsidy_notes ?? "—"],
    [label("advantage_supply"), adv || "—"], [label("bag"), (view.bag || []).length], [label("deck"), (view.deck || []).length]];
}

/** My money, tiles in supply, Advantages and aircraft with their passengers.
 * @param {View} view @param {number} seat @param {Ctx} ctx @returns {(Node | null)[]} */
export function myPanel(view, seat, ctx) {
  const p = player(view, seat);
  const owned = Object.entries(/** @type {Record<string, number>} */ (p.advantages || {})).filter(([, n]) => n)
    .map(([k, n]) => `${advantageName(k, ctx)}${n > 1 ? ` ×${n}` : ""}`);
  const line = (/** @type {OwnAircraft} */ a) => word("aircraft_line", { aircraft: formatters.aircraft(a.card, {}, ctx),
    free: a.free_capacity, capacity: a.capacity, tiles: a.airport_tiles });
  return [h("dl", { class: "kv" },
    h("dt", {}, label("money")), h("dd", {}, word("money", { money: p.money ?? 0 })),
    h("dt", {}, label("supply")), h("dd", {}, Object.entries(p.supply || {}).map(([s, n]) => word("supply_stage", { stage: s, n })).join(", ")),
    h("dt", {}, label("advantages")), h("dd", {}, owned.length ? owned.join(", ") : word("none"))),
  h("h3", {}, word("your_aircraft")),
  (p.aircraft || []).length ? h("ul", { class: "aircraft-list" }, p.aircraft.map((/** @type {OwnAircraft} */ a) => h("li", {}, icon("aircraft-card"), line(a),
    a.in_service ? "" : word("out_of_service"),
    (a.passengers || []).length ? word("carrying", { passengers: (a.passengers || []).map((x) => formatters.passenger(x, {}, ctx)).join(", ") }) : "")))
    : h("p", { class: "muted" }, word("no_aircraft"))];
}

/** Nothing beside the phase above Aeroplanes' actions (its hints go on each button). */
export function actionNote() { return null; }

/** @param {GameEvent} ev */
export function isChance(ev) {
  return ["risk_roll", "first_player_die", "advantage_roll", "attempt_failed", "attempt_crashed", "tile_placed", "shortfall"].includes(ev.type);
}

/** Aeroplanes' chance is dice (the Risk dice, the first-player die) and the bag's draws: "Dice and reveals". */
export function chanceHeading() { return null; }

/** The sum of one seat's entries of `awards` ({market: [vp per seat], ..., profit: [vp per seat]}).
 * @param {Record<string, number[] | null> | null | undefined} awards @param {number} seat @returns {number} */
const awarded = (awards, seat) => Object.values(awards || {}).reduce((n, perSeat) => n + (perSeat?.[seat] ?? 0), 0);

/**
 * The end screen's score categories, every VP source of AE-15.3 read from the engine's own events: each era's
 * scoring (`era_scoring`: majorities in the markets and profit, AE-13), the America bonus (`america_bonus`,
 * AE-8.17) and the final scoring (`final_scoring.added`: aircraft cards and passengers, AE-15.1); then the money
 * left, the tie-break (AE-15.2). `events` are every event of the game, or null when they are not (yet) known:
 * then every category is null (unknown), never a guess. A cell's `detail` (its sub-line) and `note` (its tooltip)
 * say its parts in words: an era's markets and profit; the split of AE-15.1 into cards and passengers, which the
 * event does not carry, from the final view.
 * @param {View} view @param {Ctx} ctx @param {GameEvent[] | null} events @returns {import("../types.js").FinalTable}
 */
export function final(view, ctx, events) {
  const fin = (events || []).find((e) => e.type === "final_scoring");
  const known = !!fin; // an event log without the final scoring is not the whole game's (an archived game's)
  const eras = [1, 2, 3].map((era) => (events || []).find((e) => e.type === "era_scoring" && e.era === era));
  const bonuses = (events || []).filter((e) => e.type === "america_bonus");
  const cardVp = (/** @type {number} */ n) => card(n, ctx)?.vp ?? 0;
  const tileVp = (/** @type {number} */ id) => tile(id, ctx)?.vp ?? 0;
  /** @param {number} seat @returns {number} */
  const money = (seat) => fin?.money?.[seat] ?? player(view, seat).money ?? 0;
  /** @param {GameEvent | undefined} e @param {number} seat @returns {import("../types.js").FinalValue} */
  const eraPart = (e, seat) => {
    if (!known || !e) return null;
    /** @type {[string, number][]} */
    const markets = Object.entries(/** @type {Record<string, number[] | null>} */ (e.awards || {})).filter(([m]) => m !== "profit")
      .map(([m, perSeat]) => [word("final_market", { market: regionName(m), vp: perSeat?.[seat] ?? 0 }), perSeat?.[seat] ?? 0]);
    /** @type {number} */
    const profitVp = e.awards?.profit?.[seat] ?? 0;
    /** @type {[string, number][]} */
    const all = [...markets, [word("final_profit", { vp: profitVp }), profitVp]];
    const scored = all.filter(([, vp]) => vp).map(([w]) => w);
    return { value: awarded(e.awards, seat), detail: scored.join(" · ") || null,
      note: word("final_era_note", { markets: markets.map(([w]) => w).join(", "), vp: profitVp, profit: e.profits?.[seat] ?? 0 }) };
  };
  /** @param {number} seat @returns {import("../types.js").FinalValue} */
  const americaPart = (seat) => {
    if (!known) return null;
    const mine = bonuses.filter((e) => e.seat === seat);
    return { value: mine.reduce((n, e) => n + (e.vp ?? 0), 0), detail: mine.length
      ? word("final_america_detail", { places: joinAnd(mine.map((e) => formatters.place(e.destination, e, ctx))),
        money: mine.reduce((n, e) => n + (e.money ?? 0), 0) }) : null };
  };
  /** @param {number} seat @returns {import("../types.js").FinalValue} */
  const finalPart = (seat) => {
    if (!known || !fin) return null;
    const p = player(view, seat);
    /** @type {OwnAircraft[]} */
    const aircraft = p.aircraft || [];
    const cards = aircraft.reduce((n, a) => n + cardVp(a.card), 0);
    /** @type {number[]} */
    const carried = [...(p.passengers_set_aside || []), ...aircraft.flatMap((a) => a.passengers || [])];
    const pax = carried.reduce((n, x) => n + tileVp(x), 0);
    const added = fin.added?.[seat] ?? null;
    // the split, only when it is the event's number (else the sub-line would contradict the cell)
    return { value: added, detail: cards + pax === added ? word("final_scoring_detail", { cards, passengers: pax }) : null };
  };
  return {
    categories: [...[1, 2, 3].map((era) => ({ key: `era_${era}`, label: word("final_era", { era }) })),
      { key: "america_bonus", label: word("final_america") }, { key: "final_scoring", label: word("final_scoring") }],
    values: (/** @type {number} */ seat) => [...eras.map((e) => eraPart(e, seat)), americaPart(seat), finalPart(seat)],
    total: (/** @type {number} */ seat) => score(view, seat),
    tiebreak: { key: "money", label: word("final_money"), value: money, text: (/** @type {number} */ seat) => word("money", { money: money(seat) }) },
  };
}

/** Aeroplanes' end screen has no table beyond the categories'. */
export function finalExtra() { return null; }

/** @type {Record<string, string>} */
export const RULE_OF = { choose_home: "AE-3", engine_maintenance: "AE-11", choose_action: "AE-6", buy_aircraft: "AE-7", place_tile: "AE-8",
  choose_route: "AE-8", keep_roll: "AE-11", radio_beacon: "AE-11", daring_pilot: "AE-11", pay_shortfall: "AE-8", abort: "AE-8",
  roll_next: "AE-8", end_action: "AE-8", claim_passenger: "AE-9", take_advantage: "AE-10", roll_advantage: "AE-10", pick_advantage_dice: "AE-10" };

/** The easiest route from one of my airports to `target` for a card (AE-8.3 to AE-8.6), as text.
 * @param {number} cardNo @param {string} target @param {Ctx} ctx */
function easiest(cardNo, target, ctx) {
  const long = !!card(cardNo, ctx)?.longHaul;
  const slotsByPlace = /** @type {Record<string, ({seat: number} | string | null)[]>} */ (ctx.view?.slots || {});
  const mine = Object.entries(slotsByPlace).filter(([, slots]) => slots.some((s) => s && typeof s === "object" && s.seat === ctx.me))
    .map(([id]) => id);
  /** @type {{src: string, via: string | null, r: Rolls} | null} */
  let best = null;
  const weigh = routeWeight;
  for (const src of mine) {
    if (src === target) continue;
    const c = connection(src, target, ctx);
    if (c && (long || !c.longHaul)) {
      const r = routeRolls(src, null, target, ctx);
      if (r && (best === null || weigh(r) < weigh(best.r))) best = { src, via: null, r };
    }
    if (!long) continue;
    for (const x of (ctx.data?.board?.destinations || []).map((/** @type {Destination} */ d) => d.id)) {
      if (x === src || x === target || !connection(src, x, ctx) || !connection(x, target, ctx)) continue;
      const r = routeRolls(src, x, target, ctx);
      if (r && (best === null || weigh(r) < weigh(best.r))) best = { src, via: x, r };
    }
  }
  if (!best) return null;
  return word(best.via ? "easiest_via" : "easiest_direct", { from: formatters.place(best.src, {}, ctx),
    via: best.via ? formatters.place(best.via, {}, ctx) : null, rolls: rollsText(best.r) });
}

/** Era 1's income before the start city's modifier (AE-5.2: £12, e.g. Paris −1 gives £11, Berlin +2 £14). */
const ERA1_INCOME = 12;

/** @param {Action} action @param {Ctx} ctx */
export function hint(action, ctx) {
  if (action.type === "choose_home") { // the start city's income modifier (AE-16.3), which the board prints beside it
    const modifier = dest(action.city, ctx)?.incomeModifier;
    return modifier === undefined ? null : word("home_income", { money: ERA1_INCOME + modifier });
  }
  if (action.type === "place_tile" && (action.replace === null || action.replace !== ctx.me)) return easiest(action.card, action.target, ctx);
  return null; // a route's rolls are in its words already (route_rolls): no second line repeating them
}

/** The route choices in order of how easy they are (the targets' "easiest route" weight), easiest first; other
 * actions keep the engine's order (null). @param {Action} action @param {Ctx} ctx @returns {number | null} */
export function rank(action, ctx) {
  if (action.type !== "choose_route") return null;
  return routeWeight(routeRolls(action.source, action.via, pendingTarget(ctx), ctx));
}

/** The board elements a route choice flies over, for the map to show it while it is chosen or pointed at: its source,
 * its stop, its target and the connections between them (the board's `leg:<a>:<b>` refs). @param {Action} action
 * @param {Ctx} ctx @returns {string[]} */
export function previewRefs(action, ctx) {
  const target = pendingTarget(ctx);
  if (action.type !== "choose_route" || !target) return [];
  const stops = [action.source, ...(action.via ? [action.via] : []), target];
  const legs = stops.slice(1).map((b, i) => connection(stops[i], b, ctx)).filter((c) => !!c)
    .map((c) => `leg:${/** @type {Connection} */ (c).a}:${/** @type {Connection} */ (c).b}`);
  return [...stops, ...legs];
}

/** A route is a decision of its own in the engine (AE-8.2) that has nothing to choose when the target is reached one
 * way only: the page makes it for the player (with the Confirm step while "Confirm moves" is on). */
export const PLAY_WHEN_ONLY = ["choose_route"];

/** A tile's or a route's target under its region's name (AE-1: Europe, Africa, Asia/Australasia, the Americas):
 * a tile can go to 50-60 places. @param {Action} action @param {Ctx} ctx */
export function choiceGroup(action, ctx) {
  const place = action.target ?? action.destination ?? action.city;
  const region = place ? dest(place, ctx)?.region : null;
  if (!region) return null;
  const name = regionName(region);
  return name.charAt(0).toLocaleUpperCase() + name.slice(1); // a heading: "The Americas"
}

/** @param {string} ref @param {Ctx} ctx */
export function refLabel(ref, ctx) {
  if (ref.startsWith("card:")) return formatters.aircraft(Number(ref.slice(5)), {}, ctx);
  if (ref.startsWith("tile:")) return formatters.passenger(Number(ref.slice(5)), {}, ctx);
  return formatters.place(ref, {}, ctx);
}

/** @param {GameEvent} ev @returns {string[]} */
export function refsOfEvent(ev) { return [ev.destination, ev.target, ev.city].filter(Boolean); }
