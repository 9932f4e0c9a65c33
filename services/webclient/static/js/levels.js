// @ts-check
// Bot levels as players know them: the catalog's player-facing label of the level a name plays as in a game
// (Beginner, Casual, Strong, Expert), in the page's language (ui.level_label_<level>), never the engine's level id
// ("bot Mcts-hard 1"). The lobby's seat choices and level table, My games and the game page's seat names all say it
// this way; the id stays the API's name, and a tooltip's.
import { api } from "./api.js";
import { catalogue, ui } from "./i18n.js";

/** @typedef {import("./types.js").Schemas["Catalog"]} Catalog */

/** @type {Promise<Catalog | null> | null} */
let asked = null;

/** The platform's catalog (GET /v1/catalog), asked once per page; null when it cannot be read (the label then comes
 * from the level's own name). @returns {Promise<Catalog | null>} */
export function platformCatalog() {
  asked ||= api("/v1/catalog", { tries: 3 }).catch(() => null);
  return asked;
}

/**
 * What a player is told level `level` is called in `game`: the label of the level it plays as there (the catalog's
 * `same_as`), in the page's language; the catalog's English label, else the id, where the catalogue has none.
 * @param {Catalog | null | undefined} catalog @param {string} level @param {string} game
 */
export function levelLabel(catalog, level, game) {
  const here = (catalog?.bot_level_details || []).find((d) => d.name === level)?.games?.[game];
  const k = (here?.same_as || level).replace(/-/g, "_");
  return catalogue().ui?.[`level_label_${k}`] !== undefined ? ui(`level_label_${k}`) : here?.label || level;
}

/** "Expert bot", as every page names a seat the platform's bot plays. @param {Catalog | null | undefined} catalog
 * @param {string} level @param {string} game */
export const botName = (catalog, level, game) => ui("bot", { level: levelLabel(catalog, level, game) });
