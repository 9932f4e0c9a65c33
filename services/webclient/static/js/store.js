// @ts-check
// The browser's memory of my games and my account (localStorage): seat tokens and the account's API key never leave
// this browser but as an Authorization header (never in a URL, a log line or a page's text), and the account is
// kept, so a player starts game after game against bots without signing up again.

const GAMES = "skyboard.games";
const PLAYER = "skyboard.player";

/** @typedef {import("./types.js").SeatToken} SeatToken */
/**
 * A game this browser holds seats of.
 * @typedef {{game_id: string, game?: string, title?: string, created?: string, player?: string, names?: string[], seats: SeatToken[]}} StoredGame
 */
/** This browser's player account. @typedef {{name: string, player_id?: string, api_key: string}} StoredPlayer */

/** A stored JSON value, or `fallback` when it is missing or unreadable.
 * @template T @param {string} key @param {T} fallback @returns {T} */
function read(key, fallback) {
  try { return JSON.parse(localStorage.getItem(key) ?? "null") ?? fallback; } catch { return fallback; }
}

/** All games I hold at least one seat of. @returns {StoredGame[]} */
export function myGames() { return read(GAMES, /** @type {StoredGame[]} */ ([])); }

/** Remember a game, merging seats with what is already stored for it. @param {StoredGame} entry */
export function saveGame(entry) {
  const games = myGames();
  const old = games.find((g) => g.game_id === entry.game_id);
  if (old) {
    const seats = new Map(old.seats.map((s) => [s.seat, s]));
    for (const s of entry.seats) seats.set(s.seat, s);
    Object.assign(old, entry, { seats: [...seats.values()].sort((a, b) => a.seat - b.seat) });
  } else {
    games.unshift({ created: new Date().toISOString(), ...entry });
  }
  localStorage.setItem(GAMES, JSON.stringify(games));
}

/** @param {string} gameId */
export function forgetGame(gameId) {
  localStorage.setItem(GAMES, JSON.stringify(myGames().filter((g) => g.game_id !== gameId)));
}

/** @param {string} gameId @returns {StoredGame | null} */
export function findGame(gameId) { return myGames().find((g) => g.game_id === gameId) || null; }

/** My seats with a token in a game (the human seats I may act for), sorted. @param {string} gameId */
export function mySeats(gameId) {
  const g = findGame(gameId);
  return g ? g.seats.filter((s) => s.token).sort((a, b) => a.seat - b.seat) : [];
}

/** @returns {StoredPlayer | null} */
export function player() { return read(PLAYER, /** @type {StoredPlayer | null} */ (null)); }
/** @param {StoredPlayer} p */
export function savePlayer(p) { localStorage.setItem(PLAYER, JSON.stringify(p)); }
/** Forget this browser's account (its API key no longer works: the platform refused it). */
export function forgetPlayer() { localStorage.removeItem(PLAYER); }
