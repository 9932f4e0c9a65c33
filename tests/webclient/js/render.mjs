// Renders engine objects into the page's words with the client's own code, for the Python tests that take them from
// real engine play (tests/webclient/test_log_numbers.py, test_state_texts.py). It reads {data: {game: board data},
// names: [...], cases: [...]} as JSON on stdin and writes one result per case, in order, as a JSON list on stdout.
// A case is {game, lang, view, kind, ...}: kind "event" (its `event` as a log line: i18n.js say() with the title's
// presenter), "table" (the status bar's first fact: the presenter's tableInfo), "action" (its `action` as a
// button's words), "hint" (its `action`'s second line), "note" (the line above the actions of seat `me`) or "ui"
// (the page's own words: ui.<key> filled from `params`).
import { readFileSync } from "node:fs";
import { say, ui, useCatalogue } from "../../../services/webclient/static/js/i18n.js";
import { GAMES } from "../../../services/webclient/static/js/games/registry.js";

const CATALOGUES = new URL("../../../services/webclient/static/i18n/", import.meta.url);
const input = JSON.parse(readFileSync(0, "utf8"));
/** @type {Record<string, object>} */
const catalogues = {};
const results = input.cases.map(({ game, lang, view, kind = "event", event, action, me = null, key, params }) => {
  catalogues[lang] ||= JSON.parse(readFileSync(new URL(`${lang}.json`, CATALOGUES), "utf8"));
  useCatalogue(catalogues[lang], lang);
  if (kind === "ui") return ui(key, params);
  const presenter = GAMES[game].presenter;
  const ctx = { game, view: view || {}, data: input.data[game], name: (seat) => input.names[seat] ?? "—", me };
  if (kind === "table") return presenter.tableInfo(ctx.view, ctx).slice(0, 1).map(([k, v]) => `${k} ${v}`).join("");
  if (kind === "action") return say(game, "action", action, presenter, ctx);
  if (kind === "hint") return presenter.hint(action, ctx);
  if (kind === "note") return presenter.actionNote(ctx.view, me, ctx);
  return say(game, "event", event, presenter, ctx);
});
process.stdout.write(JSON.stringify(results));
