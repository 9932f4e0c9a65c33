// @ts-check
// A browser notification when it becomes my turn in a correspondence game (days per decision), while any Skyboard
// tab is open: a player of such a game has usually left the game's page long ago. It reads the account's event
// stream (GET /v1/players/me/events: `your_turn` is sent there by the platform's outcomes consumer whoever moved), so
// it covers every game of the account, not only the one on screen. Only when the player turned it on (the lobby's
// setting, which asks the browser's permission) and the browser allows notifications; one tab of the browser holds
// the stream (a Web Lock), so several open tabs neither notify twice nor use up the account's streams.
import { ApiError, api, backoff, readEvents } from "./api.js";
import { catalogue, ui } from "./i18n.js";
import { player } from "./store.js";

const SETTING = "skyboard.notify_correspondence";
const LOCK = "skyboard.turn-notifications";

/** Whether the player asked for these notifications in this browser. */
export const correspondenceNotifyWanted = () => localStorage.getItem(SETTING) === "1";

/** The browser's answer to notifications: "granted", "denied", "default" (not asked yet) or "unsupported". */
export function notifyPermission() {
  return "Notification" in window ? Notification.permission : "unsupported";
}

/**
 * Turn the setting on or off; turning it on asks the browser's permission when it was never asked. Answers whether
 * notifications will be shown: false when the browser refused (the setting is then left off).
 * @param {boolean} on @returns {Promise<boolean>}
 */
export async function setCorrespondenceNotify(on) {
  if (!on) {
    localStorage.setItem(SETTING, "0");
    return false;
  }
  if (notifyPermission() === "default") {
    try { await Notification.requestPermission(); } catch { /* an old browser's callback form: treated as refused */ }
  }
  const granted = notifyPermission() === "granted";
  localStorage.setItem(SETTING, granted ? "1" : "0");
  if (granted) startTurnNotifications();
  return granted;
}

/** The time control of each game asked about, by id (a game's time control never changes).
 * @type {Map<string, Promise<{game: string, correspondence: boolean} | null>>} */
const games = new Map();

/** @param {string} gameId */
function gameOf(gameId) {
  let found = games.get(gameId);
  if (!found) {
    found = api(`/v1/games/${encodeURIComponent(gameId)}`, { tries: 3 })
      .then((g) => ({ game: g.game, correspondence: g.time_control?.kind === "correspondence" }), () => null);
    games.set(gameId, found);
  }
  return found;
}

/** Whether this tab shows that game's page right now (its own turn signals then say it). @param {string} gameId */
function showing(gameId) {
  return !document.hidden && location.pathname.endsWith("/game.html")
    && new URLSearchParams(location.search).get("id") === gameId;
}

/** One `your_turn` of the account stream: the notification, if its game is played by correspondence.
 * @param {{game_id: string, seat: number, version: number}} turn */
async function onTurn(turn) {
  if (!correspondenceNotifyWanted() || notifyPermission() !== "granted") return;
  const g = await gameOf(turn.game_id);
  if (!g?.correspondence || showing(turn.game_id)) return;
  const title = catalogue().ui?.[`game_title_${g.game}`] !== undefined ? ui(`game_title_${g.game}`) : g.game;
  const note = new Notification(ui("notify_corr_title", { title }),
    { body: ui("notify_corr_body"), tag: `skyboard-turn-${turn.game_id}` });
  note.onclick = () => {
    window.focus();
    location.href = `/game.html?id=${encodeURIComponent(turn.game_id)}`;
    note.close();
  };
}

/** Read the account stream until the account's key stops working or the setting is turned off; a dropped stream is
 * opened again after a back-off, from the last event read (Last-Event-ID), so no turn in between is missed. */
async function follow() {
  /** @type {string | null} */
  let last = null;
  for (let attempt = 0; correspondenceNotifyWanted() && notifyPermission() === "granted"; attempt++) {
    const me = player();
    if (!me?.api_key) return;
    /** the turns in stream order, each after the one before (its game's time control may need a read) */
    let queue = Promise.resolve();
    try {
      await readEvents("/v1/players/me/events", {
        token: me.api_key, headers: last ? { "Last-Event-ID": last } : {},
        onOpen: () => { attempt = 0; document.documentElement.dataset.turnStream = "open"; },
        onEvent: (ev) => {
          if (ev.id) last = ev.id;
          if (ev.event !== "your_turn") return;
          const turn = /** @type {{game_id: string, seat: number, version: number}} */ (ev.data); // parsed JSON
          queue = queue.then(() => onTurn(turn)).catch(() => {});
        },
      });
    } catch (err) {
      if (err instanceof ApiError && (err.status === 401 || err.status === 403)) return; // the key no longer works
    }
    delete document.documentElement.dataset.turnStream;
    await new Promise((resolve) => setTimeout(resolve, backoff(attempt)));
  }
}

let started = false;

/** Start following the account's turns in this tab, when the player wants it and the browser allows it; one tab of
 * the browser at a time (the others wait on the lock and take over when that tab closes). */
export function startTurnNotifications() {
  if (started || !correspondenceNotifyWanted() || notifyPermission() !== "granted" || !player()?.api_key) return;
  started = true;
  const run = () => follow().finally(() => { started = false; });
  if (navigator.locks) navigator.locks.request(LOCK, run);
  else run();
}
