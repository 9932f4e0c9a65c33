// @ts-check
// This browser's player account, shared by the pages that act as it (the lobby, the tournaments page): made on first
// use, its API key kept in this browser only (store.js), made afresh once when the platform no longer knows it.
import { ApiError, api } from "./api.js";
import { ui } from "./i18n.js";
import { forgetPlayer, player, savePlayer } from "./store.js";
import { startTurnNotifications } from "./turn_notify.js";

/** @typedef {import("./store.js").StoredPlayer} StoredPlayer */

/** This browser's player account, made on first use (creating a game, a ticket or entering an event needs its API
 * key); a new one when `name` differs from the stored one's (null: any name will do).
 * @param {string | null} name @returns {Promise<StoredPlayer>} */
export async function ensurePlayer(name) {
  const me = player();
  if (me && (name === null || me.name === name)) return me;
  const chosen = name ?? ui("default_player_name");
  const created = await api("/v1/players", { method: "POST", body: { name: chosen } });
  const fresh = { name: chosen, ...created };
  savePlayer(fresh);
  startTurnNotifications(); // the new account's turns, when the player asked for them
  return fresh;
}

/**
 * Make a call as this browser's player (`ensurePlayer(name)`), answering its result with the player as `me`. A kept
 * account whose key the platform no longer knows (401: a revoked key, a reset platform) is forgotten and made
 * afresh once; any other refusal is the caller's to show.
 * @template T @param {string | null} name @param {(me: StoredPlayer) => Promise<T>} call
 * @returns {Promise<T & {me: StoredPlayer}>}
 */
export async function asPlayer(name, call) {
  const kept = player();
  let me = await ensurePlayer(name);
  try {
    return { ...(await call(me)), me };
  } catch (err) {
    if (!(err instanceof ApiError && err.status === 401 && kept && kept.api_key === me.api_key)) throw err;
    forgetPlayer();
    me = await ensurePlayer(name ?? kept.name);
    return { ...(await call(me)), me };
  }
}
