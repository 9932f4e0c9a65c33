// @ts-check
// The event log: each event in the rulebook's words, newest first, the latest version's lines marked, the dice and
// reveals repeated in their own panel and the last move above the board.
import { h } from "../dom.js";
import { say, ui } from "../i18n.js";
import { $, ctxFor, gameKey, pres, st } from "./state.js";

/** @typedef {import("../types.js").GameEvent} GameEvent */

/** An event in words. @param {GameEvent} ev */
export function eventLine(ev) { return say(gameKey(), "event", ev, pres(), ctxFor(st.game?.view || st.replay?.view)); }

/** Add one event of `version` to the log (a new version unmarks the previous one's lines).
 * @param {GameEvent} ev @param {number} version */
export function logEvent(ev, version) {
  const p = pres();
  const chance = p.isChance(ev);
  if (version !== st.lastVersion) {
    st.lastVersion = version;
    st.lastRefs = new Set();
    $("log").querySelectorAll("li.latest").forEach((li) => li.classList.remove("latest"));
  }
  p.refsOfEvent(ev).forEach((r) => st.lastRefs.add(r));
  const text = eventLine(ev);
  const item = h("li", { class: `latest${chance ? " chance-ev" : ""}` }, text, ev.visible_to ? [" ", h("span", { class: "muted" }, ui("only_you_see"))] : "");
  const log = $("log");
  log.prepend(item);
  while (log.children.length > 5000) log.lastChild.remove();
  if (chance) $("chance").textContent = text;
  if ("seat" in ev || ev.type.endsWith("placed") || ev.type === "market_won") $("last-move").textContent = ui("last_move", { text });
}

/** The log of a replay step: its events only. @param {GameEvent[]} events */
export function showEvents(events) {
  $("log").replaceChildren(...events.map((ev) => h("li", { class: pres().isChance(ev) ? "chance-ev" : "" }, eventLine(ev))));
  const chance = events.filter((ev) => pres().isChance(ev));
  $("chance").textContent = chance.length ? chance.map(eventLine).join(" · ") : "—";
}
