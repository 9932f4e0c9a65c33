// @ts-check
// The platform catalog's words in the page's language: its option names and choices and its game titles are the
// server's English, and a page shows the catalogue's words for them where it has them (ui.option_*, choice_*,
// game_title_*). Shared by the pages that offer a title's options (the lobby, the tournaments page).
import { show, words } from "./dom.js";
import { catalogue, ui } from "./i18n.js";

/** An option's name. @param {string} k */
export const optionName = (k) => (catalogue().ui?.[`option_${k}`] !== undefined ? ui(`option_${k}`) : words(k));
/** One of an option's choices. @param {unknown} c */
export const choiceName = (c) => (typeof c === "string" && catalogue().ui?.[`choice_${c}`] !== undefined ? ui(`choice_${c}`) : show(c));
/** A game's title (the catalogue's ui.game_title_<game>; the catalog's English otherwise).
 * @param {string} name @param {string} fallback */
export const titleOf = (name, fallback) => (catalogue().ui?.[`game_title_${name}`] !== undefined ? ui(`game_title_${name}`) : fallback);
