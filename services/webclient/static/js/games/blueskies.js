// Blue Skies in the rulebook's words: airport names, gate and buyout costs on the buttons, the budget in view,
// my hand (the cards I hold, not a per-seat row), and the final region scoring as a table.
import { h, icon, seatBadge } from "../dom.js";
import { joinAnd, wordsOf } from "../i18n.js";

const word = wordsOf("blueskies", "text");

const apt = (code, ctx) => (ctx.data?.blueskies?.airports || []).find((a) => a.code === code);
const regionName = (id, ctx) => (ctx.data?.blueskies?.regions || []).find((r) => r.id === id)?.name || id;

export const formatters = {
  airport(v, o, ctx) { const a = apt(v, ctx); return a ? `${a.name} (${v})` : String(v); },
  gate_cost(v, o, ctx) { return String((ctx.view?.airports || []).find((a) => a.code === v)?.next_cost ?? "?"); },
  buyout_cost(v, o, ctx) { return String(apt(v, ctx)?.buyout ?? "?"); },
  cards(v) { return (v || []).length ? joinAnd(v) : "no cards"; },
  cards_word(v) { return Number(v) === 1 ? "card" : "cards"; },
  airports_word(v) { return Number(v) === 1 ? "airport" : "airports"; },
  entitlements(v, o, ctx) {
    const list = (v || []).map((n, i) => (n ? `${ctx.name(i)} ${n} airport${n > 1 ? "s" : ""}` : null)).filter(Boolean);
    return list.length ? joinAnd(list) : "nobody trails";
  },
  regions(v, o, ctx) {
    return `Regions: ${(v || []).map((r) => `${regionName(r.region, ctx)} ${joinAnd(r.first.map((s) => ctx.name(s)))} +${r.first_bonus}` +
      (r.second.length ? `, ${joinAnd(r.second.map((s) => ctx.name(s)))} +${r.second_bonus}` : "")).join("; ")}.`;
  },
  unused_special(v, o, ctx) {
    const list = (v || []).map((n, i) => (n ? ctx.name(i) : null)).filter(Boolean);
    return list.length ? ` Unused special action +3: ${joinAnd(list)}.` : "";
  },
};

export function variant(kind, o, ctx) {
  if (kind === "action" && o.type === "done" && ctx.view?.phase === "setup_buy") return "setup";
  if (kind === "action" && o.type === "discard" && !(o.cards || []).length) return "none";
  return null;
}

export function score(view, seat) { return view.scores?.[seat] ?? 0; }

export function seatStats(view, seat) {
  return [["Income", view.income?.[seat] ?? 0], ["Gates in supply", view.supply?.[seat] ?? 0], ["Cards in hand", view.hand_counts?.[seat] ?? 0],
    ["Special action", view.special_used?.[seat] ? "used" : "ready"]];
}

export function tableInfo(view, ctx) {
  const out = [["Round", view.round], ["First player", ctx.name(view.first_player)], ["Deck", `${view.deck_count} cards`],
    ["Passenger bag", `${view.bag?.red ?? "?"} red, ${view.bag?.green ?? "?"} green`]];
  if (view.government?.used) out.push(["Government help", "used"]);
  return out;
}

export function myPanel(view, seat, ctx) {
  const buying = view.phase === "buy" || view.phase === "setup_buy";
  return [h("dl", { class: "kv" },
    buying && (view.to_act || []).includes(seat) ? [h("dt", {}, "Budget left"), h("dd", { class: "budget" }, String(view.budget ?? "—"))] : null,
    h("dt", {}, "Your hand"), h("dd", {}, (view.hand || []).length
      ? h("ul", { class: "hand-cards" }, view.hand.map((c) => h("li", {}, icon("bs-card"), formatters.airport(c, {}, ctx))))
      : "no cards"),
    h("dt", {}, "Special action"), h("dd", {}, view.special_used?.[seat] ? "used" : "still available (once per game)"))];
}

/** Shown with the actions: the budget left in a purchase turn (BS-8.1.1). */
export function actionNote(view, seat) {
  return (view.phase === "buy" || view.phase === "setup_buy") && (view.to_act || []).includes(seat) ? `Budget left: ${view.budget}.` : null;
}

export function isChance(ev) { return ["reveal", "play", "special", "help", "draw_cards", "income"].includes(ev.type); }

function regionAwards(f, seat) {
  return (f?.regions || []).reduce((a, r) => a + (r.first.includes(seat) ? r.first_bonus : 0) + (r.second.includes(seat) ? r.second_bonus : 0), 0);
}

/**
 * Score categories of the end screen from the final view's breakdown (the engine's game_over data): the score
 * before final scoring (the final score minus what final scoring gained, BS-9.1), the region majorities (BS-9.2)
 * and the unused special action (BS-9.3); income breaks ties (BS-9.4). (ctx and events unused: the view has it.)
 */
export function final(view) {
  const f = view.final;
  const total = (seat) => f?.scores?.[seat] ?? score(view, seat);
  const gained = (seat) => f?.gains?.[seat];
  return {
    categories: [{ key: "before", label: word("final_before") }, { key: "regions", label: word("final_regions") },
      { key: "unused_special", label: word("final_unused_special") }],
    values: (seat) => [{ value: gained(seat) === undefined ? null : total(seat) - gained(seat) },
      { value: f ? regionAwards(f, seat) : null }, { value: f?.unused_special?.[seat] ?? null }],
    total,
    tiebreak: { key: "income", label: word("final_income"), value: (seat) => view.income?.[seat] ?? 0,
      text: (seat) => String(view.income?.[seat] ?? 0) },
  };
}

/** The final region scoring as a table: each region's gate values and who took first and second place. */
export function finalExtra(view, ctx) {
  const f = view.final;
  if (!f) return null;
  const seats = (f.scores || []).map((_, i) => i);
  return h("table", { class: "grid-table regions-table" }, h("caption", {}, "Region majorities (BS-9.2): gate value, and bonus won"),
    h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "Region"), seats.map((s) => h("th", { scope: "col" }, seatBadge(s), " ", ctx.name(s))))),
    h("tbody", {}, f.regions.map((r) => h("tr", {}, h("th", { scope: "row" }, `${regionName(r.region, ctx)} (${r.first_bonus})`),
      seats.map((s) => h("td", {}, `${r.values[s]}`, r.first.includes(s) ? h("b", {}, ` +${r.first_bonus}`) : r.second.includes(s) ? h("b", {}, ` +${r.second_bonus}`) : ""))))));
}

export const RULE_OF = { buy_gate: "BS-8.1", buyout: "BS-8.1", done: "BS-8.1", play_card: "BS-8.2", special: "BS-8.2", discard: "BS-8.2",
  help: "BS-8.6", help_done: "BS-8.6" };

export function hint() { return null; }

export function refLabel(ref, ctx) { return formatters.airport(ref, {}, ctx); }

export function refsOfEvent(ev) { return [ev.airport, ev.card].filter((x) => typeof x === "string"); }
