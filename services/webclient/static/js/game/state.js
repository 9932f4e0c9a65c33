// @ts-check
// The game page's state: one object whose every field is declared here (no field appears on the fly), and the
// few derived values every part of the page asks for (my seat's token, the game's presenter, a seat's name).
import { api } from "../api.js";
import { catalogue, errorText, number, ui } from "../i18n.js";
import { findGame, player } from "../store.js";
import { gameModule } from "../games/registry.js";
import { botName, platformCatalog } from "../levels.js";

/** @typedef {import("../types.js").Game} Game */
/** @typedef {import("../types.js").Action} Action */
/** @typedef {import("../types.js").View} View */
/** @typedef {import("../types.js").Ctx} Ctx */
/** @typedef {import("../types.js").GameEvent} GameEvent */
/** @typedef {import("../types.js").BoardData} BoardData */
/** @typedef {import("../types.js").SeatToken} SeatToken */
/** @typedef {import("../types.js").Presenter} Presenter */
/** @typedef {import("../types.js").Board} Board */

/**
 * A step of the replay (GET /webclient/replay/{id}?step=N).
 * @typedef {{game: string, step: number, steps: number, seat: number | null, action: Action | null, view: View,
 *   events: GameEvent[], to_act: number[]}} ReplayStep
 */

/**
 * @typedef {object} PageState
 * @property {SeatToken[]} seats  my seats with tokens
 * @property {number | null} seat  the seat I act as now
 * @property {Game | null} game  the last GET /v1/games/{id}
 * @property {Action[]} actions  the legal actions of `seat`
 * @property {BoardData | null} boardData
 * @property {string[] | null} filterRefs  board refs the action list is narrowed to (a tapped or clicked element)
 * @property {{action: Action, ref: string | null} | null} staged  a choice waiting for its confirmation (the action, and
 *   the board element chosen, or null for a choice from the action list): nothing is sent before it
 * @property {AbortController | null} stream  the SSE reader's
 * @property {number} streamFailures
 * @property {number} lastEventVersion
 * @property {number} loggedTo  the versions up to this one are in the log from a finished game's whole event list
 *   (GET /webclient/events/{id}): the stream's copies of them are not logged again
 * @property {string} turnKey  version@to_act@status: a new decision starts the clock again
 * @property {number} turnSince
 * @property {boolean} busy  an action is on its way
 * @property {ReplayStep | null} replay
 * @property {number} replaySeq  the latest replay step asked for
 * @property {Promise<void> | null} loading  the refresh under way
 * @property {number} want  the version the page waits for
 * @property {string[]} names  seat -> player name
 * @property {Set<string>} lastRefs  board refs named by the latest version's events (or the move stepped back to)
 * @property {{version: number, lines: string[], refs: string[]}[]} recent  the moves since my last one, oldest
 *   first (one entry per version): a burst of bot moves can be stepped through
 * @property {number} recentAt  the index of the move shown (-1: the latest)
 * @property {number} lastVersion
 * @property {boolean} refocus  move focus to the actions after the next redraw
 * @property {number} zoom  1 = fit (the whole board), up to game/board.js maxZoom
 * @property {boolean} readable  the player chose "Readable": each redraw keeps the zoom at which its smallest label
 *   is 11 px (a label drawn later, a callsign, may be smaller), until the player zooms otherwise
 * @property {boolean} wasMyTurn
 * @property {GameEvent[] | "pending" | null | undefined} finalEvents  the whole game's events for the end screen
 * @property {number} onlyChoiceAt  the version whose only choice the page made for the player (game.js takeOnlyChoice)
 * @property {boolean} tookBack  my last decision was taking one back: the page makes no choice for me until I play
 */

/** @type {PageState} */
export const st = {
  seats: [],
  seat: null,
  game: null,
  actions: [],
  boardData: null,
  filterRefs: null,
  staged: null,
  stream: null,
  streamFailures: 0,
  lastEventVersion: 0,
  loggedTo: 0,
  turnKey: "",
  turnSince: Date.now(),
  busy: false,
  replay: null,
  replaySeq: 0,
  loading: null,
  want: 0,
  names: [],
  lastRefs: new Set(),
  recent: [],
  recentAt: -1,
  lastVersion: -1,
  refocus: false,
  zoom: 1,
  readable: false,
  wasMyTurn: false,
  finalEvents: undefined,
  onlyChoiceAt: -1,
  tookBack: false,
};

export const params = new URLSearchParams(location.search);
export const gameId = params.get("id") || "";

/** An element of the page by id. @param {string} id @returns {HTMLElement} */
export const $ = (id) => /** @type {HTMLElement} */ (document.getElementById(id));
/** An <input> of the page by id. @param {string} id */
export const $input = (id) => /** @type {HTMLInputElement} */ (document.getElementById(id));
/** A <select> of the page by id. @param {string} id */
export const $select = (id) => /** @type {HTMLSelectElement} */ (document.getElementById(id));

/** A value of a panel or table: a number as the language writes it (Intl.NumberFormat), anything else as text.
 * @param {unknown} v */
export const figure = (v) => (typeof v === "number" ? number(v) : String(v));

/** The token of the seat I act as, or null (a spectator). */
export const token = () => st.seats.find((x) => x.seat === st.seat)?.token || null;
/** The title on screen ("opensky"...), the live game's or the replay's. */
export const gameKey = () => st.game?.game || st.replay?.game || "";
/** The registered game on screen (the page only opens titles the registry has). */
function registered() {
  const found = gameModule(gameKey());
  if (!found) throw new Error(`this client cannot show ${gameKey() || "this game"}`);
  return found;
}
/** The game's presenter (games/<game>.js, through the registry). @returns {Presenter} */
export const pres = () => registered().presenter;
/** The game's board (boards/<game>.js). @returns {Board} */
export const boardOf = () => registered().board;
/** The game's title in the catalogue's words (ui.game_title_<game>), else the lobby's record of it, else the brand. */
export const title = () => catalogue().ui?.[`game_title_${gameKey()}`] || findGame(gameId)?.title || ui("brand");
/** A seat's player name ("—" for none). @param {number | null | undefined} seat */
export const nameOf = (seat) => (seat === null || seat === undefined ? "—" : st.names[seat] || ui("player_n", { n: Number(seat) + 1 }));
/** The context of the presenter's and the board's words. @param {View} view @returns {Ctx} */
export const ctxFor = (view) => ({ game: gameKey(), view, data: st.boardData, name: nameOf, me: st.seat });

/** Show an error (null: clear it); in another language than English the gateway's own words go to the tooltip.
 * @param {unknown} err */
export function showError(err) {
  const { text, detail } = errorText(err);
  $("error").textContent = text;
  if (detail) $("error").title = detail;
  else $("error").removeAttribute("title");
}

/**
 * Offline: the choices on screen may be stale (the game can move on meanwhile), so they are hidden, not offered,
 * until the page is back in touch and has refreshed (css: body.offline; #offline-note says why).
 * @param {boolean} offline
 */
export function setOffline(offline) {
  if (!offline && document.body.classList.contains("offline")) $("notice").textContent = ""; // back in touch
  document.body.classList.toggle("offline", offline);
  $("action-list").inert = offline;
  $("offline-note").hidden = !offline;
}

/** Each seated player's account name (GET /v1/players/{id}), so a person has the same name in every browser
 * (docs/decisions/webclient-trial.md, item 9); a name that cannot be read is left out. @param {Game} g @returns {Promise<Record<string, string>>} */
async function accountNames(g) {
  const ids = [...new Set((g.seats || []).map((x) => x.player_id)
    .filter((id) => typeof id === "string"))];
  const named = await Promise.all(ids.map((id) => api(`/v1/players/${encodeURIComponent(id)}`, { tries: 2 })
    .then((p) => [id, p.name], () => [id, null])));
  return Object.fromEntries(named.filter(([, name]) => name));
}

/**
 * Player names: a seat's player account's name (numbered when one player holds several seats, hot-seat), bots by
 * their level's name for players ("Expert bot", levels.js; not the zombie of a seat that left: it stays its
 * player's), else mine from the lobby, else "Player N".
 * @param {Game} g
 */
export async function computeNames(g) {
  const entry = findGame(gameId);
  const me = entry?.player || player()?.name || null;
  const mine = st.seats.map((x) => x.seat);
  const bots = g.bots || {};
  const [accounts, catalog] = await Promise.all([accountNames(g), Object.keys(bots).length ? platformCatalog() : null]);
  // a seat's account: a person's, or a bot account's (kind "bot" with a player_id); the platform's bots have none
  const holder = (/** @type {number} */ seat) => (g.seats || []).find((x) => x.seat === seat)?.player_id;
  const seatsOf = (/** @type {string} */ id) => (g.seats || []).filter((x) => x.player_id === id).map((x) => x.seat);
  /** @type {Record<string, number>} */
  const count = {};
  const kindOf = (/** @type {number} */ seat) => (g.seats || []).find((x) => x.seat === seat)?.kind;
  // played by the platform's bot: a bot seat without an account (a seat that left stays its player's, kind "human")
  const platformBot = (/** @type {number} */ seat) => kindOf(seat) !== "human" && !holder(seat);
  /** @type {Record<string, number>} */
  const levels = Object.entries(bots).filter(([s]) => platformBot(Number(s)))
    .map(([, l]) => l).reduce((m, l) => ({ ...m, [l]: (m[l] || 0) + 1 }), /** @type {Record<string, number>} */ ({}));
  st.names = Array.from({ length: g.players }, (_, i) => {
    if (entry?.names?.[i]) return entry.names[i];
    const level = platformBot(i) ? bots[String(i)] : null;
    if (level) {
      count[level] = (count[level] || 0) + 1;
      const base = botName(catalog, level, g.game); // "Expert bot": the level's name for players, not its id
      return levels[level] > 1 ? `${base} ${count[level]}` : base;
    }
    const id = holder(i);
    if (id && accounts[id]) return seatsOf(id).length > 1 ? `${accounts[id]} ${seatsOf(id).indexOf(i) + 1}` : accounts[id];
    if (mine.includes(i) && me) return mine.length > 1 ? `${me} ${mine.indexOf(i) + 1}` : me;
    return ui("player_n", { n: i + 1 });
  });
}
