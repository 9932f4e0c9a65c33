// @ts-check
// The end screen: players ranked by placement with each score category, the winners, and the presenter's extra
// table. The categories come from the whole game's events (read once from the platform: /webclient/events).
import { api } from "../api.js";
import { h, seatBadge } from "../dom.js";
import { ui } from "../i18n.js";
import { rulesFor, splitRules } from "../rules.js";
import { logWholeGame } from "./log.js";
import { $, ctxFor, figure, gameId, nameOf, pres, st } from "./state.js";

/** @typedef {import("../types.js").Game} Game */
/** @typedef {import("../types.js").GameEvent} GameEvent */
/** @typedef {import("../types.js").FinalValue} FinalValue */

/** "1st", "2nd"... in the language. @param {number} n */
const ordinal = (n) => (n <= 3 ? ui(`place_${n}`) : ui("place_n", { n }));

/**
 * Every event of the finished game, for the end screen's score categories (a presentation's final() reads them) and
 * for the log of a game opened after its end: GET /webclient/events/{id}, the game's published log replayed with the
 * engine as a spectator sees it (scoring is public), the same whether the game is still in Redis or in the archive,
 * whose stream has no events (docs/decisions/webclient-trial.md, item 1). st.finalEvents: undefined (not asked),
 * "pending", an array, or null (unavailable). The end screen is drawn again once they are in.
 */
async function loadFinalEvents() {
  if (st.finalEvents !== undefined) return;
  st.finalEvents = "pending";
  try {
    /** @type {{events: (GameEvent & {version: number})[]}} */
    const all = await api(`/webclient/events/${encodeURIComponent(gameId)}`);
    st.finalEvents = all.events;
    logWholeGame(all.events);
  } catch {
    st.finalEvents = null;
  }
  if (st.game?.status === "finished" && !st.replay) renderFinal(st.game);
}

/**
 * The end screen: players ranked by placement (winners first; ties share a place) with each score category. The
 * places and winners are the platform's result (`places`, `winners`: services/common/standings.py), never worked out
 * here: the rules' order, tie-breaks included, with a seat whose player resigned or was abandoned last and never a
 * winner, whatever it scored; `seats` say who left.
 * Every game's final(view, ctx, events) gives the categories (types.js FinalTable); a value is null while unknown.
 * The categories add up to the score: where they do not (a category unknown, or a difference), an "Other" column
 * shows the difference, never hidden.
 * @param {Game} g
 */
export function renderFinal(g) {
  const done = g.status === "finished";
  $("final").hidden = !done;
  $("replay-open").hidden = !done;
  if (!done) return;
  loadFinalEvents();
  const winners = g.winners || [];
  const scores = g.scores || [];
  const p = pres();
  const pending = st.finalEvents === "pending";
  const f = p.final(g.view, ctxFor(g.view), Array.isArray(st.finalEvents) ? st.finalEvents : null);
  const seats = Array.from({ length: g.players }, (_, i) => i);
  const left = (/** @type {number} */ s) => (g.seats || []).find((x) => x.seat === s)?.status || "active";
  // a column's name in words; the rule it scores by is the header's tooltip (rule_refs.js; docs/decisions/webclient-trial.md, item 9)
  const words = (/** @type {string} */ label) => splitRules(label).text;
  const head = (/** @type {string} */ key, /** @type {string} */ label) => h("th", { scope: "col", "data-key": key,
    title: [...rulesFor(`${g.game}/final/${key}`), ...splitRules(label).rules].join(", ") || null }, words(label));
  const place = (/** @type {number} */ s) => (g.places || [])[s] ?? g.players;
  const ranked = [...seats].sort((a, b) => place(a) - place(b) || a - b);
  const parts = Object.fromEntries(seats.map((s) => [s, f.values(s)]));
  const other = (/** @type {number} */ s) => scores[s] - parts[s].reduce((n, x) => n + (x?.value ?? 0), 0);
  const showOther = !pending && seats.some((s) => other(s) !== 0);
  // data-label: the column's name, which a narrow end screen writes before each value (css: .final-table)
  const cell = (/** @type {string} */ key, /** @type {string} */ label, /** @type {FinalValue} */ x) => {
    const known = x && x.value !== null && x.value !== undefined;
    return h("td", { "data-key": key, "data-label": label, "data-value": known ? x.value : null, title: x?.note || x?.detail || null },
      known ? figure(x.value) : pending ? "…" : "—", x?.detail ? [h("br"), h("small", { class: "muted" }, x.detail)] : null);
  };
  $("final-scores").replaceChildren(h("table", { class: "grid-table final-table", "data-breakdown": pending ? "pending" : st.finalEvents ? "ready" : "unavailable" },
    h("caption", { class: "sr-only" }, ui("final_caption")),
    h("thead", {}, h("tr", {}, h("th", { scope: "col" }, ui("final_place")), h("th", { scope: "col" }, ui("final_player")),
      f.categories.map((c) => head(c.key, c.label)),
      showOther ? head("other", ui("final_other")) : null,
      f.tiebreak ? head(f.tiebreak.key, f.tiebreak.label) : null,
      h("th", { scope: "col", "data-key": "total" }, ui("total")))),
    h("tbody", {}, ranked.map((s) => h("tr", { "data-seat": s, "data-score": scores[s], "data-winner": winners.includes(s) ? "true" : null,
      "data-left": left(s) === "active" ? null : left(s), class: winners.includes(s) ? "winner" : "" },
      h("td", {}, ordinal(place(s))), h("th", { scope: "row" }, seatBadge(s), " ", nameOf(s),
        winners.includes(s) ? h("span", { class: "win-tag" }, ui("winner_tag")) : "",
        left(s) === "active" ? "" : h("span", { class: "left-tag muted" }, left(s) === "resigned" ? ui("resigned_tag") : ui("abandoned_tag"))),
      f.categories.map((c, i) => cell(c.key, words(c.label), parts[s][i])),
      showOther ? cell("other", ui("final_other"), { value: other(s) }) : null,
      f.tiebreak ? h("td", { "data-key": f.tiebreak.key, "data-label": words(f.tiebreak.label), "data-value": f.tiebreak.value(s) }, f.tiebreak.text(s)) : null,
      h("td", { "data-key": "total", "data-label": ui("total"), "data-value": scores[s] }, h("b", {}, figure(scores[s]))))))));
  $("winners").textContent = winners.length ? ui(winners.length > 1 ? "winners" : "winner", { names: winners.map(nameOf).join(", ") })
    : ui("no_winner");
  const extra = p.finalExtra(g.view, ctxFor(g.view));
  $("final-extra").replaceChildren(...(extra ? [extra] : []));
  $("chance").textContent = $("winners").textContent;
}
