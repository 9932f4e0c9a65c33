// @ts-check
// The player cards, always in view: badge (colour + pattern + shape), name, score, each seat's key numbers (the
// presenter's seatStats) and whose turn it is.
import { h, seatBadge } from "../dom.js";
import { ui } from "../i18n.js";
import { $, ctxFor, figure, nameOf, pres, st } from "./state.js";

/** @typedef {import("../types.js").View} View */

/**
 * @param {{players: number, status: string, bots?: Record<string, string>}} g
 * @param {View} view
 * @param {number[]} toAct
 * @param {boolean} [replay] a replay step: who acts next, never "thinking…" (nobody is thinking in a replay)
 */
export function renderPlayers(g, view, toAct, replay = false) {
  const p = pres();
  const bots = g.bots || {};
  $("players").replaceChildren(...Array.from({ length: g.players }, (_, i) => {
    const acting = g.status === "active" && toAct.includes(i);
    const mine = st.seats.some((x) => x.seat === i);
    const state = !acting ? "" : replay ? ui("replay_to_act") : bots[String(i)] ? ui("thinking") : mine ? ui("your_turn") : ui("deciding");
    return h("article", { class: `player-card${acting ? " acting" : ""}${i === st.seat ? " me" : ""}`, "data-seat": i, "aria-label": nameOf(i) },
      h("div", { class: "pc-head" }, seatBadge(i), h("span", { class: "pc-name" }, nameOf(i)),
        mine ? h("span", { class: "pc-tag" }, ui("you")) : null),
      h("div", { class: "pc-score" }, h("span", { class: "pc-label" }, ui("score")), " ", h("b", {}, figure(p.score(view, i)))),
      h("dl", { class: "pc-stats" }, p.seatStats(view, i, ctxFor(view)).flatMap(([k, v]) => [h("dt", {}, k), h("dd", {}, figure(v))])),
      h("div", { class: "pc-turn", "aria-live": "polite" }, acting ? h("span", { class: bots[String(i)] && !replay ? "thinking" : "" }, `▶ ${state}`) : ""));
  }));
}
