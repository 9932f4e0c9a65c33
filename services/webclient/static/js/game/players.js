// @ts-check
// The player cards, always in view: badge (colour + pattern + shape), name, score, each seat's key numbers (the
// presenter's seatStats) and whose turn it is; a bot to act shows it is thinking (a spinner, the seconds so far).
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
    const thinking = acting && !replay && !!bots[String(i)]; // a bot to act: the player waits on it
    const state = !acting ? "" : replay ? ui("replay_to_act") : thinking ? "" : mine ? ui("your_turn") : ui("deciding");
    const turn = thinking ? h("span", { class: "thinking" }, h("span", { class: "spinner", "aria-hidden": "true" }),
      h("span", { class: "thinking-text" }, thinkingText()))
      : acting ? h("span", {}, `▶ ${state}`) : "";
    return h("article", { class: `player-card${acting ? " acting" : ""}${thinking ? " bot-thinking" : ""}${i === st.seat ? " me" : ""}`,
      "data-seat": i, "aria-label": nameOf(i) },
      h("div", { class: "pc-head" }, seatBadge(i), h("span", { class: "pc-name" }, nameOf(i)),
        mine ? h("span", { class: "pc-tag" }, ui("you")) : null),
      h("div", { class: "pc-score" }, h("span", { class: "pc-label" }, ui("score")), " ", h("b", {}, figure(p.score(view, i)))),
      h("dl", { class: "pc-stats" }, p.seatStats(view, i, ctxFor(view)).flatMap(([k, v]) => [h("dt", {}, k), h("dd", {}, figure(v))])),
      h("div", { class: "pc-turn", "aria-live": "polite" }, turn));
  }));
}

/** "thinking…", then with the seconds the decision has taken so far ("thinking… 4 s") once it takes a while. */
function thinkingText() {
  const seconds = Math.floor((Date.now() - st.turnSince) / 1000);
  return seconds < 2 ? ui("thinking") : ui("thinking_for", { s: seconds });
}

/** Count the seconds on each thinking bot's card (every second, with the clock; the cards are not redrawn). */
export function tickThinking() {
  document.querySelectorAll("#players .thinking-text").forEach((el) => { el.textContent = thinkingText(); });
}
