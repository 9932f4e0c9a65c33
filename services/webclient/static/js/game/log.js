// @ts-check
// The event log: each event in the rulebook's words, newest first, the latest version's lines marked, the dice and
// reveals repeated in their own panel and the last move above the board.
import { h } from "../dom.js";
import { say, ui } from "../i18n.js";
import { markLastMove } from "./board.js";
import { $, ctxFor, gameKey, pres, st } from "./state.js";

/** @typedef {import("../types.js").GameEvent} GameEvent */

/** An event in words. @param {GameEvent} ev */
export function eventLine(ev) { return say(gameKey(), "event", ev, pres(), ctxFor(st.game?.view || st.replay?.view || NO_VIEW)); }

/** Before the first view: the presenters read every field of a view with a fallback. */
const NO_VIEW = /** @type {import("../types.js").View} */ (/** @type {unknown} */ ({}));

/** Add one event of `version` to the log (a new version unmarks the previous one's lines).
 * @param {GameEvent} ev @param {number} version */
export function logEvent(ev, version) {
  if (version <= st.loggedTo) return; // already logged from the finished game's whole list
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
  while (log.children.length > 5000) log.lastElementChild?.remove();
  if (chance) $("chance").textContent = text;
  if ("seat" in ev || ev.type.endsWith("placed") || ev.type === "market_won") addMove(version, text, p.refsOfEvent(ev));
}

/**
 * The log of a finished game opened after its end: its whole event list from the platform (an archived game's stream
 * has no events), unless the stream has logged them already (docs/decisions/webclient-trial.md, item 1).
 * @param {(GameEvent & {version: number})[]} events
 */
export function logWholeGame(events) {
  if ($("log").children.length || !events.length) return;
  events.forEach((ev) => logEvent(ev, ev.version));
  st.loggedTo = events[events.length - 1].version;
}

const MAX_RECENT = 30;

/** Add a move's line to the moves since my last one (a version's lines are one move). @param {number} version
 * @param {string} text @param {string[]} refs */
function addMove(version, text, refs) {
  const last = st.recent[st.recent.length - 1];
  if (last && last.version === version) { last.lines.push(text); last.refs.push(...refs); }
  else st.recent.push({ version, lines: [text], refs: [...refs] });
  if (st.recent.length > MAX_RECENT) st.recent.splice(0, st.recent.length - MAX_RECENT);
  st.recentAt = -1;
  renderLastMove();
}

/** I moved: the moves before mine are no longer news. */
export function forgetMoves() {
  st.recent = [];
  st.recentAt = -1;
  renderLastMove();
}

/** Show move `i` of the recent ones, its board elements marked (docs/decisions/webclient-trial.md, item 7: a burst of bot moves showed only
 * its last move). @param {number} i */
function stepTo(i) {
  st.recentAt = i;
  st.lastRefs = new Set(st.recent[i].refs);
  markLastMove();
  renderLastMove();
  /** @type {HTMLElement | null} */ ($("last-move").querySelector(i === 0 ? ".move-later" : ".move-earlier"))?.focus();
}

/** The last move above the board; with several moves since mine, buttons to step back through them. */
function renderLastMove() {
  const list = st.recent;
  if (!list.length) { $("last-move").replaceChildren(); return; }
  const i = st.recentAt < 0 ? list.length - 1 : st.recentAt;
  const text = h("span", { class: "move-text" }, ui("last_move", { text: list[i].lines.join(" · ") }));
  if (list.length < 2) { $("last-move").replaceChildren(text); return; }
  $("last-move").replaceChildren(text, " ", h("span", { class: "moves-stepper" },
    h("button", { type: "button", class: "small move-earlier", disabled: i === 0, "aria-label": ui("moves_earlier"),
      onclick: () => stepTo(i - 1) }, "◀"),
    h("span", { class: "muted" }, ui("moves_step", { n: i + 1, count: list.length })),
    h("button", { type: "button", class: "small move-later", disabled: i === list.length - 1, "aria-label": ui("moves_later"),
      onclick: () => stepTo(i + 1) }, "▶")));
}

/** The log of a replay step: its events only. @param {GameEvent[]} events */
export function showEvents(events) {
  $("log").replaceChildren(...events.map((ev) => h("li", { class: pres().isChance(ev) ? "chance-ev" : "" }, eventLine(ev))));
  const chance = events.filter((ev) => pres().isChance(ev));
  $("chance").textContent = chance.length ? chance.map(eventLine).join(" · ") : "—";
}
