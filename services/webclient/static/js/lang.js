// @ts-check
// Which language the client speaks: the one the player picked (remembered in this browser), else the first of the
// browser's languages (navigator.languages, the same list it sends as Accept-Language) that the client has a
// catalogue for, else English. The pages' language picker (#lang-select) changes it and reloads the page, so every
// word already drawn is drawn again in the new language.

/** The catalogues the client has (i18n/<lang>.json, identical key sets: tests/webclient/test_languages.py). */
export const LANGUAGES = ["en", "ru", "it", "pl"];
const KEY = "skyboard.lang";

/** @param {string | null | undefined} tag a BCP 47 tag ("ru-RU", "pl") @returns {string | null} */
export function supported(tag) {
  const base = String(tag || "").toLowerCase().split(/[-_]/)[0];
  return LANGUAGES.includes(base) ? base : null;
}

/** @returns {string} the language to speak now */
export function chosenLanguage() {
  let saved = null;
  try { saved = supported(localStorage.getItem(KEY)); } catch { /* storage blocked: follow the browser */ }
  if (saved) return saved;
  for (const tag of navigator.languages || [navigator.language]) {
    const lang = supported(tag);
    if (lang) return lang;
  }
  return "en";
}

/** Remember `lang` in this browser (it wins over the browser's languages from now on). @param {string} lang */
export function rememberLanguage(lang) {
  try { localStorage.setItem(KEY, lang); } catch { /* storage blocked: the choice lasts this page only */ }
}

/**
 * Wire the page's language picker: show `lang`, and on a change remember the choice and reload the page.
 * @param {string} lang the language the page speaks
 * @param {ParentNode} root
 */
export function bindLanguagePicker(lang, root = document) {
  const select = /** @type {HTMLSelectElement | null} */ (root.querySelector("#lang-select"));
  if (!select || select.dataset.bound) return;
  select.dataset.bound = "1";
  select.value = lang;
  select.addEventListener("change", () => {
    if (!supported(select.value)) return;
    rememberLanguage(select.value);
    location.reload();
  });
}
