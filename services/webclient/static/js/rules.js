// @ts-check
// Rule ids ("OS-19.2", "AE-8.9", "BS-7.6") belong in tooltips, not in the prompts and headers a player reads
// (issue #38 item 9). The catalogue keeps them in its templates (translators see which rule a sentence states);
// the page shows the words without them and puts them in the element's title.

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
 * Show `text` in `el` without its rule ids; the ids (and `extra`, a longer tooltip) become its title.
 * @template {HTMLElement} E @param {E} el @param {string} text @param {string | null} [extra] @returns {E}
 */
export function showWithRules(el, text, extra = null) {
  const { text: clean, rules } = splitRules(text);
  el.textContent = clean;
  const title = [rules.join(", "), extra].filter(Boolean).join(" · ");
  if (title) el.title = title;
  else el.removeAttribute("title");
  return el;
}
