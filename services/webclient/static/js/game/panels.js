// @ts-check
// The side panels: my hand and resources, what is on the table, the rules summary (rule ids live here and in
// tooltips, not in the prompts).
import { h, seatBadge } from "../dom.js";
import { section, ui } from "../i18n.js";
import { $, ctxFor, figure, gameKey, nameOf, pres, st } from "./state.js";

/** @typedef {import("../types.js").View} View */

/** A definition list of label/value pairs. @param {[string, unknown][]} pairs */
export function kvList(pairs) {
  return h("dl", { class: "kv" }, pairs.flatMap(([k, v]) => [h("dt", {}, k), h("dd", {}, figure(v))]));
}

/** My hand and resources (the seat I act as). @param {View} view */
export function renderMe(view) {
  const me = $("me");
  if (st.seat === null) { me.replaceChildren(h("p", { class: "muted" }, ui("no_seat"))); return; }
  me.replaceChildren(h("p", {}, seatBadge(st.seat), " ", h("b", {}, nameOf(st.seat))), ...pres().myPanel(view, st.seat, ctxFor(view)).filter((n) => n !== null));
}

/** On the table, the chance panel's heading in the title's words, and the rules summary (drawn once).
 * @param {View} view */
export function renderTable(view) {
  $("table-info").replaceChildren(kvList(pres().tableInfo(view, ctxFor(view))));
  $("chance-h").textContent = pres().chanceHeading() ?? ui("chance");
  const rules = section(gameKey(), "rules");
  if (!$("rules-body").childElementCount && Array.isArray(rules)) {
    // each rule in words; its id (for whoever has the rulebook or the docs) is the tooltip, not the text
    $("rules-body").replaceChildren(h("ul", { class: "rules-list" }, rules.map(([id, text]) => h("li", { title: id }, text))),
      h("p", { class: "muted" }, ui("rule_numbers_note")));
  }
}

/** The status bar's phase line: the first of the presenter's table facts ("Month March"). @param {View} view */
export function phaseLine(view) {
  return pres().tableInfo(view, ctxFor(view)).slice(0, 1).map(([k, v]) => `${k} ${v}`).join(" · ");
}
