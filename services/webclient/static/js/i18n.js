// Words, not data: the message catalogue (i18n/<lang>.json) and the template filler. Every action, log line,
// phase and panel label is a template with named parameters, "Bid {fare} on {itinerary|itinerary}", filled
// from the engine's JSON object; `|name` picks a formatter of the game module (js/games/<game>.js) or one of
// the common ones below. tests/webclient/test_catalogue.py checks the catalogue against the engines.
import { api } from "./api.js";

let CAT = { ui: {} };
const PARAM = /\{([a-z_]+)(?:\|([a-z_]+))?\}/g;

export async function loadCatalogue(lang = "en") {
  CAT = await api(`/i18n/${encodeURIComponent(lang)}.json`);
  return CAT;
}

export const catalogue = () => CAT;

/** "A", "A and B", "A, B and C" (the catalogue's ui.and_list joins the last two). */
export function joinAnd(items) {
  const list = items.map(String);
  if (list.length <= 1) return list.join("");
  return ui("and_list", { head: list.slice(0, -1).join(", "), last: list[list.length - 1] });
}

/** Formatters every game may use: value, the whole object, the context ({name(seat), data, view, ...}). */
export const COMMON = {
  player(v, o, ctx) { return ctx.name(v); },
  player_s(v, o, ctx) { return v === null || v === undefined ? ui("empty_slot_s") : ui("player_s", { name: ctx.name(v) }); },
  players(v, o, ctx) { return (v || []).length ? joinAnd(v.map((s) => ctx.name(s))) : ui("nobody"); },
  list(v) { return joinAnd(v || []); },
  wins(v) { return ui((v || []).length > 1 ? "share_the_win" : "wins"); },
  hundreds(v) { return String(Number(v) * 100); },
  points_by_player(v, o, ctx) { return (v || []).map((x, i) => `${ctx.name(i)} ${x}`).join(", "); },
  money_by_player(v, o, ctx) { return (v || []).map((x, i) => `${ctx.name(i)} ${x}`).join(", "); },
};

/** Fill `template` from `obj`: {field} shows the value, {field|fmt} runs a formatter. */
export function fill(template, obj = {}, fmts = {}, ctx = {}) {
  return String(template).replace(PARAM, (_m, name, fmt) => {
    const v = obj[name];
    const f = fmt ? fmts[fmt] || COMMON[fmt] : null;
    if (f) return f(v, obj, ctx);
    if (v === null || v === undefined) return "—";
    return Array.isArray(v) ? joinAnd(v) : String(v);
  });
}

/** A user-interface string of the catalogue's "ui" section. */
export function ui(key, params = {}) {
  return fill(CAT.ui?.[key] ?? key, params);
}

/**
 * The words of an engine object: kind "action" or "event" of `game`; the game module's `variant(kind, obj)`
 * may pick an alternative wording ("<type>.<variant>"). Unknown types fall back to a plain reading.
 */
export function say(game, kind, obj, pres, ctx) {
  const section = CAT[game]?.[kind] || {};
  const variant = pres?.variant ? pres.variant(kind, obj, ctx) : null;
  // the platform's own events (turn clock, resignations, abort) read the same in every game
  const template = (variant && section[`${obj.type}.${variant}`]) || section[obj.type] || CAT.platform?.[kind]?.[obj.type];
  if (!template) return String(obj.type).replace(/_/g, " ");
  const text = fill(template, obj, pres?.formatters || {}, ctx);
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** A section of a game's catalogue (phase, state, rules, group, kinds). */
export const section = (game, name) => CAT[game]?.[name] || {};

/**
 * The words of one key of a game's catalogue part ("board": boards/<game>.js, "text": games/<game>.js,
 * "state": labels of the game's state), filled from `params` ({name} placeholders; values already words or
 * data). A key the catalogue lacks shows as "⟨game.part.key⟩", never as made-up English.
 */
export function tr(game, part, key, params = {}) {
  const template = CAT[game]?.[part]?.[key];
  return template === undefined ? `⟨${game}.${part}.${key}⟩` : fill(template, params);
}

/** tr() bound to one game and part: `const word = wordsOf("opensky", "board"); word("map_title", {map})`. */
export const wordsOf = (game, part) => (key, params = {}) => tr(game, part, key, params);

/**
 * The page's own words (index.html, game.html) from the catalogue: an element with `data-i18n="key"` shows ui.key
 * as its text, and `data-i18n-attr="aria-label:key; placeholder:key"` sets those attributes. The HTML carries the
 * English as it stands, so the page reads the same before the catalogue arrives (tests/webclient/test_page_words.py
 * checks the two agree and that no word of the pages is left unmarked).
 */
export function localize(root = document) {
  for (const el of root.querySelectorAll("[data-i18n]")) {
    const key = el.dataset.i18n;
    if (CAT.ui?.[key] !== undefined) el.textContent = ui(key);
  }
  for (const el of root.querySelectorAll("[data-i18n-attr]")) {
    for (const pair of el.dataset.i18nAttr.split(";")) {
      const [attr, key] = pair.split(":").map((x) => x.trim());
      if (attr && CAT.ui?.[key] !== undefined) el.setAttribute(attr, ui(key));
    }
  }
}
