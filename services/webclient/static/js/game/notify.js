// @ts-check
// Telling the player it is their turn: the favicon and title always; when they asked for it (remembered in this
// browser), a short tone and, while the page is hidden, a browser notification.
import { ui } from "../i18n.js";
import { $, $input, gameId, nameOf, st, title } from "./state.js";

const NOTIFY = "skyboard.notify";

/** The tab's icon: the seat's colour with "!" on my turn. @param {string} colour @param {boolean} mine */
export function setFavicon(colour, mine) {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><circle cx="16" cy="16" r="${mine ? 15 : 10}" fill="${colour}"/>` +
    (mine ? `<text x="16" y="22" font-size="16" text-anchor="middle" fill="#fff" font-family="sans-serif">!</text>` : "") + "</svg>";
  /** @type {HTMLLinkElement} */ ($("favicon")).href = `data:image/svg+xml,${encodeURIComponent(svg)}`;
  document.body.classList.toggle("my-turn", mine);
}

/** When my turn starts (not on every redraw) and the player asked for it: the tone and the notification.
 * @param {boolean} myTurn @param {{to_act: number[]}} g */
export function announceTurn(myTurn, g) {
  const started = myTurn && !st.wasMyTurn;
  st.wasMyTurn = myTurn;
  if (!started || !$input("notify-turn").checked) return;
  try {
    const audio = new (window.AudioContext || /** @type {any} */ (window).webkitAudioContext)();
    const tone = audio.createOscillator();
    const gain = audio.createGain();
    tone.frequency.value = 660;
    gain.gain.setValueAtTime(0.08, audio.currentTime);
    gain.gain.exponentialRampToValueAtTime(0.001, audio.currentTime + 0.4);
    tone.connect(gain).connect(audio.destination);
    tone.start();
    tone.stop(audio.currentTime + 0.4);
  } catch { /* no audio here: the notification and the title still say it */ }
  if (document.hidden && "Notification" in window && Notification.permission === "granted") {
    new Notification(ui("notify_title", { title: title() }), { body: ui("notify_body", { name: nameOf(g.to_act[0]) }), tag: gameId });
  }
}

/** The checkbox's remembered state. */
export const notifyWanted = () => localStorage.getItem(NOTIFY) === "1";

/** Remember the choice; turning it on asks for the browser's permission once. @param {boolean} on */
export async function setNotify(on) {
  localStorage.setItem(NOTIFY, on ? "1" : "0");
  if (on && "Notification" in window && Notification.permission === "default") {
    try { await Notification.requestPermission(); } catch { /* the tone still plays */ }
  }
}
