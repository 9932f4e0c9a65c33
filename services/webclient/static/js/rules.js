// @ts-check
// Rule ids ("OS-19.2", "AE-8.9", "BS-7.6") belong in tooltips, not in the prompts, headers and log lines a player
// reads (docs/decisions/webclient-trial.md, item 9). The catalogue's words carry none: which rule a sentence states is kept once, for every
// language, in rule_refs.js, and the page puts it in the element's title. Words that still name one (a server's
// message) show without it.
import { RULE_REFS } from "./rule_refs.js";

/** The rule ids the catalogue sentence at `path` states ("opensky/phase/bid" -> ["OS-10"]), none when it names no
 * rule. @param {string} path @returns {string[]} */
export const rulesFor = (path) => RULE_REFS[path] || [];

const RULE_ID = /\b(?:AE|OS|BS)-\d+(?:\.\d+)*/g;
const HAS_RULE = /\b(?:AE|OS|BS)-\d/;

/**
 * `text` without its rule ids, and the ids in order: "(OS-14, OS-15)" goes, "(tie-break, AE-15.2)" keeps
 * "(tie-break)", an id outside parentheses goes with the comma before it.
 * @param {string} text @returns {{text: string, rules: string[]}}
 */
export function splitRules(text) {
  const rules = String(text).match(RULE_ID) || [];
  const clean = String(text)
    .replace(/\s*\(([^()]*)\)/g, (whole, inner) => {
      if (!HAS_RULE.test(inner)) return whole;
      const rest = inner.split(/\s*[,;]\s*/).filter((/** @type {string} */ part) => !HAS_RULE.test(part)).join(", ").trim();
      return rest ? ` (${rest})` : "";
    })
    .replace(/,?\s*\b(?:AE|OS|BS)-\d+(?:\.\d+)*/g, "");
  return { text: clean, rules };
}

/**
 * Show `text` in `el` without any rule id it names; the rules its sentence states (`refs`, rulesFor) and the ones it
 * named, and `extra` (a longer tooltip), become its title.
 * @template {HTMLElement} E @param {E} el @param {string} text @param {string | null} [extra]
 * @param {string[]} [refs] @returns {E}
 */
export function showWithRules(el, text, extra = null, refs = []) {
  const { text: clean, rules } = splitRules(text);
  el.textContent = clean;
  const title = [[...new Set([...refs, ...rules])].join(", "), extra].filter(Boolean).join(" · ");
  if (title) el.title = title;
  else el.removeAttribute("title");
  return el;
}
