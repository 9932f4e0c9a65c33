// @ts-check
// Blue Skies in the rulebook's words: airport names, gate and buyout costs on the buttons, the budget in view,
// my hand (the cards I hold, not a per-seat row), and the final region scoring as a table.
// Words: the catalogue's blueskies.text (formatters, panels, end screen) and blueskies.state (labels).
import { h, icon, seatBadge } from "../dom.js";
import { joinAnd, section, wordsOf } from "../i18n.js";
import { rulesFor, showWithRules } from "../rules.js";

/** @typedef {import("../types.js").BlueskiesView} View */
/** @typedef {import("../types.js").Ctx<View>} Ctx */
/** @typedef {import("../types.js").GameEvent} GameEvent */
/** @typedef {import("../types.js").Action} Action */
/** @typedef {import("../types.js").Presenter<View>} Presenter */
/** A region's final scoring: who took first and second place, and the bonuses. @typedef {{region: string,
 *   first: number[], second: number[], first_bonus: number, second_bonus: number, values: number[]}} RegionScore */

const word = wordsOf("blueskies", "text");
const label = wordsOf("blueskies", "state");

/** The printed airport `code`. @param {string} code @param {Ctx} ctx
 * @returns {{code: string, name: string, buyout?: number} | undefined} */
const apt = (code, ctx) => (ctx.data?.blueskies?.airports || []).find((/** @type {{code: string}} */ a) => a.code === code);
/** An airport's name in the page's language (the catalogue's blueskies.airports), else the data's.
 * @param {{code: string, name: string}} a */
export const airportName = (a) => section("blueskies", "airports")[a.code] || a.name;
/** @param {string} id @param {Ctx} ctx @returns {string} */
export const regionName = (id, ctx) => section("blueskies", "regions")[id]
  || (ctx.data?.blueskies?.regions || []).find((/** @type {{id: string}} */ r) => r.id === id)?.name || id;

/** @type {Presenter["formatters"]} */
export const formatters = {
  airport(v, o, ctx) { const a = apt(v, ctx); return a ? `${airportName(a)} (${v})` : String(v); },
  gate_cost(v, o, ctx) { return String((ctx.view?.airports || []).find((a) => a.code === v)?.next_cost ?? "?"); },
  buyout_cost(v, o, ctx) { return String(apt(v, ctx)?.buyout ?? "?"); },
  cards(v) { return (v || []).length ? joinAnd(v) : word("no_cards"); },
  entitlements(v, o, ctx) {
    const list = (v || []).map((/** @type {number} */ n, /** @type {number} */ i) => (n ? word("entitled", { player: ctx.name(i), n }) : null))
      .filter(Boolean);
    return list.length ? joinAnd(list) : word("nobody_trails");
  },
  regions(v, o, ctx) {
    const names = (/** @type {number[]} */ seats) => joinAnd(seats.map((s) => ctx.name(s)));
    return word("regions", { regions: (v || []).map((/** @type {RegionScore} */ r) => word(r.second.length ? "region_first_second" : "region_first", {
      region: regionName(r.region, ctx), first: names(r.first), first_bonus: r.first_bonus,
      second: names(r.second), second_bonus: r.second_bonus })).join("; ") });
  },
  unused_special(v, o, ctx) {
    const list = (v || []).map((/** @type {number} */ n, /** @type {number} */ i) => (n ? ctx.name(i) : null)).filter(Boolean);
    return list.length ? word("unused_special", { players: joinAnd(list) }) : "";
  },
};

/** @type {Presenter["variant"]} */
export function variant(kind, o, ctx) {
  if (kind === "action" && o.type === "done" && ctx.view?.phase === "setup_buy") return "setup";
  if (kind === "action" && o.type === "discard" && !(o.cards || []).length) return "none";
  return null;
}

/** @param {View} view @param {number} seat @returns {number} */
export function score(view, seat) { return view.scores?.[seat] ?? 0; }

/** A player card's key numbers. @param {View} view @param {number} seat @returns {[string, string | number][]} */
export function seatStats(view, seat) {
  return [[label("income"), view.income?.[seat] ?? 0], [label("supply"), view.supply?.[seat] ?? 0],
    [label("hand_counts"), view.hand_counts?.[seat] ?? 0], [label("special_used"), word(view.special_used?.[seat] ? "used" : "ready")]];
}

/** "On the table"; the first pair heads the status bar. @param {View} view @param {Ctx} ctx @returns {[string, string | number][]} */
export function tableInfo(view, ctx) {
  /** @type {[string, string | number][]} */
  const out = [[label("round"), view.round], [label("first_player"), ctx.name(view.first_player)],
    [label("deck_count"), word("deck_cards", { n: view.deck_count })],
    [label("bag"), word("bag", { red: view.bag?.red ?? "?", green: view.bag?.green ?? "?" })]];
  if (view.government?.used) out.push([label("government"), word("used")]);
  return out;
}

/** My budget in a purchase turn, my hand and my special action. @param {View} view @param {number} seat @param {Ctx} ctx
 * @returns {(Node | null)[]} */
export function myPanel(view, seat, ctx) {
  const buying = view.phase === "buy" || view.phase === "setup_buy";
  return [h("dl", { class: "kv" },
    buying && (view.to_act || []).includes(seat) ? [h("dt", {}, label("budget")), h("dd", { class: "budget" }, String(view.budget ?? "—"))] : null,
    h("dt", {}, label("hand")), h("dd", {}, (view.hand || []).length
      ? h("ul", { class: "hand-cards" }, (view.hand || []).map((c) => h("li", {}, icon("bs-card"), formatters.airport(c, {}, ctx))))
      : word("no_cards")),
    h("dt", {}, label("special_used")), h("dd", {}, word(view.special_used?.[seat] ? "used" : "special_available")))];
}

/** Shown with the actions: the budget left in a purchase turn (BS-8.1.1). @param {View} view @param {number | null} seat */
export function actionNote(view, seat) {
  return (view.phase === "buy" || view.phase === "setup_buy") && seat !== null && (view.to_act || []).includes(seat) ? word("budget_note", { budget: view.budget }) : null;
}

/** What chance decides: the cards revealed or drawn and the passengers drawn from the bag by a card or a special action
 * (BS-3, BS-6). @param {GameEvent} ev */
export function isChance(ev) { return ["reveal", "play", "special", "help", "draw_cards"].includes(ev.type); }

/** Blue Skies has no dice (BS-2): its chance panel is the cards and passengers drawn. */
export function chanceHeading() { return word("chance_heading"); }

/** @param {{regions?: RegionScore[]} | null | undefined} f @param {number} seat @returns {number} */
function regionAwards(f, seat) {
  return (f?.regions || []).reduce((/** @type {number} */ a, /** @type {RegionScore} */ r) => a + (r.first.includes(seat) ? r.first_bonus : 0) + (r.second.includes(seat) ? r.second_bonus : 0), 0);
}

/**
 * Score categories of the end screen from the final view's breakdown (the engine's game_over data): the score
 * before final scoring (the final score minus what final scoring gained, BS-9.1), the region majorities (BS-9.2)
 * and the unused special action (BS-9.3); income breaks ties (BS-9.4). (ctx and events unused: the view has it.)
 * @param {View} view @returns {import("../types.js").FinalTable}
 */
export function final(view) {
  const f = view.final;
  /** @param {number} seat @returns {number} */
  const total = (seat) => f?.scores?.[seat] ?? score(view, seat);
  /** @param {number} seat @returns {number | undefined} */
  const gained = (seat) => f?.gains?.[seat];
  return {
    categories: [{ key: "before", label: word("final_before") }, { key: "regions", label: word("final_regions") },
      { key: "unused_special", label: word("final_unused_special") }],
    values: (seat) => [{ value: gained(seat) === undefined ? null : total(seat) - (gained(seat) ?? 0) },
      { value: f ? regionAwards(f, seat) : null }, { value: f?.unused_special?.[seat] ?? null }],
    total,
    tiebreak: { key: "income", label: word("final_income"), value: (seat) => view.income?.[seat] ?? 0,
      text: (seat) => String(view.income?.[seat] ?? 0) },
  };
}

/** The final region scoring as a table: each region's gate values and who took first and second place.
 * @param {View} view @param {Ctx} ctx */
export function finalExtra(view, ctx) {
  const f = view.final;
  if (!f) return null;
  /** @type {number[]} */
  const seats = (f.scores || []).map((/** @type {number} */ _, /** @type {number} */ i) => i);
  return h("table", { class: "grid-table regions-table" }, showWithRules(h("caption", {}), word("regions_caption"), null,
    rulesFor("blueskies/text/regions_caption")),
    h("thead", {}, h("tr", {}, h("th", { scope: "col" }, word("region")), seats.map((s) => h("th", { scope: "col" }, seatBadge(s), " ", ctx.name(s))))),
    h("tbody", {}, f.regions.map((/** @type {RegionScore} */ r) => h("tr", {}, h("th", { scope: "row" }, word("region_bonus", { region: regionName(r.region, ctx), bonus: r.first_bonus })),
      seats.map((s) => h("td", {}, `${r.values[s]}`, r.first.includes(s) ? h("b", {}, ` +${r.first_bonus}`) : r.second.includes(s) ? h("b", {}, ` +${r.second_bonus}`) : ""))))));
}

/** @type {Record<string, string>} */
export const RULE_OF = { buy_gate: "BS-8.1", buyout: "BS-8.1", done: "BS-8.1", play_card: "BS-8.2", special: "BS-8.2", discard: "BS-8.2",
  help: "BS-8.6", help_done: "BS-8.6" };

export function hint() { return null; }

/** Blue Skies' lists are short: no headings. */
export function choiceGroup() { return null; }

/** Blue Skies lists its choices in the engine's order. @returns {number | null} */
export function rank() { return null; }

/** No choice of Blue Skies flies a route to show beforehand. @returns {string[]} */
export function previewRefs() { return []; }

/** Blue Skies has no decision the page makes for the player. @type {string[]} */
export const PLAY_WHEN_ONLY = [];

/** @param {string} ref @param {Ctx} ctx */
export function refLabel(ref, ctx) { return formatters.airport(ref, {}, ctx); }

/** @param {GameEvent} ev @returns {string[]} */
export function refsOfEvent(ev) { return [ev.airport, ev.card].filter((x) => typeof x === "string"); }
