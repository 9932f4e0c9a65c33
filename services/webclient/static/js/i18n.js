// @ts-check
// Words, not data: the message catalogue (i18n/<lang>.json, one per language with identical keys) and the filler.
// Every action, log line, phase and panel label is an ICU MessageFormat template (plural, select, selectordinal,
// number) with named parameters, filled from the engine's JSON object by FormatJS's intl-messageformat (vendored:
// static/vendor/, built by services/webclient/build_vendor.sh). One extension: `{field|name}` first runs a
// formatter of the game module (js/games/<game>.js) or one of the common ones below, and its result is the
// argument, so `{winners|count, plural, one {...} other {...}}` works too. tests/webclient/test_catalogue.py
// checks the catalogue against the engines, tests/webclient/test_languages.py the languages against each other.
import { api } from "./api.js";
import { bindLanguagePicker, chosenLanguage } from "./lang.js";
import { IntlMessageFormat } from "../vendor/intl-messageformat.js";

/** A catalogue (i18n/<lang>.json): a section per game and the page's own words, each a tree of templates.
 * @typedef {{ui: Record<string, string>, platform?: Record<string, Record<string, string>>, [section: string]: any}} Catalogue */
/** A formatter of `{field|name}`: the field's value, the whole object, the page's context. A game's formatters are
 * its presenter's (types.js). @typedef {(v: any, obj: any, ctx: any) => unknown} Formatter */

/** @type {Catalogue} */
let CAT = { ui: {} };
let LANG = "en";
/** `{field|fmt` (then "}" or ","): a formatter's argument, rewritten to the plain argument `field__fmt`. */
const FMT_ARG = /\{([a-z_]+)\|([a-z_]+)(?=\s*[,}])/g;
/** @type {Map<string, InstanceType<typeof IntlMessageFormat>>} */
const compiled = new Map();

/** Load the catalogue of `lang` (default: the player's or the browser's language) and set `<html lang>`. */
export async function loadCatalogue(lang = chosenLanguage()) {
  useCatalogue(await api(`/i18n/${encodeURIComponent(lang)}.json`), lang);
  document.documentElement.lang = lang;
  return CAT;
}

/** Speak `lang` with the catalogue `cat` from now on (loadCatalogue's second half; node's unit tests call it with a
 * catalogue read from disk). @param {Catalogue} cat @param {string} lang */
export function useCatalogue(cat, lang) {
  CAT = cat;
  LANG = lang;
  compiled.clear();
}

export const catalogue = () => CAT;
/** The language the catalogue speaks ("en", "ru", "it", "pl"). */
export const language = () => LANG;

/** A number as the language writes it (Intl.NumberFormat: "1,250.5", "1 250,5", "1250,5"), with `digits` decimals.
 * @param {number} n @param {number} [digits] */
export const number = (n, digits) => new Intl.NumberFormat(LANG, digits === undefined ? {}
  : { minimumFractionDigits: digits, maximumFractionDigits: digits }).format(n);
/** Game money (Aeroplanes' pounds) as the language writes an amount of pounds: "£12", "12 £".
 * @param {number | string} n */
export const money = (n) => new Intl.NumberFormat(LANG, { style: "currency", currency: "GBP", currencyDisplay: "narrowSymbol",
  maximumFractionDigits: 0 }).format(Number(n));

/** "A", "A and B", "A, B and C" (the catalogue's ui.and_list joins the last two). @param {unknown[]} items */
export function joinAnd(items) {
  const list = items.map(String);
  if (list.length <= 1) return list.join("");
  return ui("and_list", { head: list.slice(0, -1).join(", "), last: list[list.length - 1] });
}

/** Formatters every game may use: value, the whole object, the context ({name(seat), data, view, ...}).
 * @type {Record<string, Formatter>} */
export const COMMON = {
  player(v, o, ctx) { return ctx.name(v); },
  player_s(v, o, ctx) { return v === null || v === undefined ? ui("empty_slot_s") : ui("player_s", { name: ctx.name(v) }); },
  players(v, o, ctx) { return (v || []).length ? joinAnd(v.map((/** @type {number} */ s) => ctx.name(s))) : ui("nobody"); },
  list(v) { return joinAnd(v || []); },
  /** How many: an array's length or the number itself, for `{x|count, plural, ...}`. */
  count(v) { return Array.isArray(v) ? v.length : Number(v) || 0; },
  money(v) { return money(v ?? 0); },
  hundreds(v) { return number(Number(v) * 100); },
  points_by_player(v, o, ctx) { return (v || []).map((/** @type {number} */ x, /** @type {number} */ i) => `${ctx.name(i)} ${number(x)}`).join(", "); },
  money_by_player(v, o, ctx) { return (v || []).map((/** @type {number} */ x, /** @type {number} */ i) => `${ctx.name(i)} ${money(x)}`).join(", "); },
};

/** A value as an argument: a list joined in words, nothing as "—" (numbers stay numbers, for plural and select).
 * @param {unknown} v */
function plain(v) {
  if (v === null || v === undefined) return "—";
  if (Array.isArray(v)) return joinAnd(v);
  return v;
}

/** The compiled template (parsed once per language). @param {string} src */
function compile(src) {
  let m = compiled.get(src);
  if (!m) {
    m = new IntlMessageFormat(src, LANG, undefined, { ignoreTag: true });
    compiled.set(src, m);
  }
  return m;
}

/**
 * Fill `template` from `obj`: {field} shows the value, {field|fmt} a formatter's result, and the ICU forms
 * ({n, plural, one {# card} other {# cards}}, {x, select, ...}) choose by the value. A field the object lacks
 * shows as "—". A template that does not parse shows as itself (tests/webclient/test_languages.py parses them all).
 * @param {string} template @param {Record<string, any>} [obj] @param {Record<string, Formatter>} [fmts] @param {any} [ctx]
 * @returns {string}
 */
export function fill(template, obj = {}, fmts = {}, ctx = {}) {
  /** @type {Record<string, unknown>} */
  const values = {};
  const src = String(template).replace(FMT_ARG, (_m, name, fmt) => {
    const key = `${name}__${fmt}`;
    const f = fmts[fmt] || COMMON[fmt];
    values[key] = f ? f(obj[name], obj, ctx) : plain(obj[name]);
    return `{${key}`;
  });
  for (const [k, v] of Object.entries(obj || {})) {
    if (!(k in values)) values[k] = plain(v);
  }
  // simple numeric arguments as the language writes numbers; plural/select arguments keep the raw number
  const simple = new Set([...src.matchAll(/\{([a-z_]+)\}/g)].map((x) => x[1]));
  const args = new Proxy(values, {
    has: () => true,
    get: (t, k) => {
      if (typeof k !== "string") return undefined;
      const v = k in t ? t[k] : "—";
      return typeof v === "number" && simple.has(k) && !src.includes(`{${k},`) ? number(v) : v;
    },
  });
  try {
    return String(compile(src).format(/** @type {Record<string, any>} */ (args)));
  } catch (err) {
    console.warn("template", src, err);
    return String(template);
  }
}

/**
 * An error in the page's language, as a player reads it: the catalogue's words for the error code (ui.error_<code>)
 * in every language, with how long to wait where the server said (its Retry-After: "Try again in 4 minutes"); a
 * call that got no answer at all is the network's fault (ui.error_network). The gateway's own English and the rule
 * id it cites are the `detail`, for a tooltip, never the text (a player reads no rule ids). In English a code the
 * catalogue has no words for keeps the server's message, which says more than "The server refused the request".
 * @param {any} err  an ApiError, a network TypeError, any Error
 * @param {number | null} [waitS]  seconds still to wait (a countdown's), default the error's own Retry-After
 * @returns {{text: string, detail: string}}
 */
export function errorText(err, waitS = err?.retryAfter ?? null) {
  if (!err) return { text: "", detail: "" };
  const message = err.message || String(err);
  let code = err.status ? err.code || "other" : err instanceof TypeError ? "network" : null;
  if (code && CAT.ui?.[`error_${code}`] === undefined) code = "other";
  const own = code !== null && !(code === "other" && LANG === "en");
  const said = own ? ui(`error_${code}`) : message;
  const text = typeof waitS === "number" && waitS > 0 ? ui("error_wait", { message: said, wait: duration(waitS) }) : said;
  const detail = [own ? message : "", err.rule ? `(${err.rule})` : ""].filter(Boolean).join(" ");
  return { text, detail };
}

/** A wait as people say it, rounded up: "45 seconds", "4 minutes", "2 hours 10 minutes" (the language's plurals).
 * @param {number} seconds */
export function duration(seconds) {
  const s = Math.max(1, Math.ceil(seconds));
  if (s < 90) return ui("wait_seconds", { n: s });
  const minutes = Math.ceil(s / 60);
  if (minutes < 90) return ui("wait_minutes", { n: minutes });
  const h = Math.floor(minutes / 60);
  return minutes % 60 ? ui("wait_hours_minutes", { h, m: minutes % 60 }) : ui("wait_hours", { h });
}

/** A user-interface string of the catalogue's "ui" section. @param {string} key @param {Record<string, any>} [params] */
export function ui(key, params = {}) {
  return fill(CAT.ui?.[key] ?? key, params);
}

/**
 * The words of an engine object: kind "action" or "event" of `game`; the game module's `variant(kind, obj)`
 * may pick an alternative wording ("<type>.<variant>"). Unknown types fall back to a plain reading.
 * @param {string} game @param {"action" | "event"} kind @param {{type: string, [field: string]: any}} obj
 * @param {import("./types.js").Presenter | null} pres @param {import("./types.js").Ctx} ctx
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

/** A section of a game's catalogue (phase, state, rules, group, kinds).
 * @param {string} game @param {string} name @returns {Record<string, any>} */
export const section = (game, name) => CAT[game]?.[name] || {};

/**
 * The words of one key of a game's catalogue part ("board": boards/<game>.js, "text": games/<game>.js,
 * "state": labels of the game's state), filled from `params` ({name} placeholders; values already words or
 * data). A key the catalogue lacks shows as "⟨game.part.key⟩", never as made-up English.
 * @param {string} game @param {string} part @param {string} key @param {Record<string, any>} [params]
 */
export function tr(game, part, key, params = {}) {
  const template = CAT[game]?.[part]?.[key];
  return template === undefined ? `⟨${game}.${part}.${key}⟩` : fill(template, params);
}

/** tr() bound to one game and part: `const word = wordsOf("opensky", "board"); word("map_title", {map})`. */
export const wordsOf = (/** @type {string} */ game, /** @type {string} */ part) =>
  (/** @type {string} */ key, /** @type {Record<string, any>} */ params = {}) => tr(game, part, key, params);

/**
 * The page's own words (index.html, game.html) from the catalogue: an element with `data-i18n="key"` shows ui.key
 * as its text, and `data-i18n-attr="aria-label:key; placeholder:key"` sets those attributes. The HTML carries the
 * English as it stands, so the page reads the same before the catalogue arrives (tests/webclient/test_page_words.py
 * checks the two agree and that no word of the pages is left unmarked).
 * @param {ParentNode} [root]
 */
export function localize(root = document) {
  bindLanguagePicker(LANG, root);
  for (const el of root.querySelectorAll("[data-i18n]")) {
    if (!(el instanceof HTMLElement)) continue;
    const key = el.dataset.i18n || "";
    if (CAT.ui?.[key] !== undefined) el.textContent = ui(key);
  }
  for (const el of root.querySelectorAll("[data-i18n-attr]")) {
    if (!(el instanceof HTMLElement)) continue;
    for (const pair of (el.dataset.i18nAttr || "").split(";")) {
      const [attr, key] = pair.split(":").map((x) => x.trim());
      if (attr && CAT.ui?.[key] !== undefined) el.setAttribute(attr, ui(key));
    }
  }
}
