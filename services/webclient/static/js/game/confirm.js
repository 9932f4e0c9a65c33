// @ts-check
// "Confirm moves": whether a choice from the action list waits for its Confirm button, as a board choice always does
// (a tap may land on a crossing). Remembered in this browser; on by default on a phone, where one slip of a finger
// on a bid button would otherwise be final.

const CONFIRM = "skyboard.confirmMoves";
/** The phone layout's width (css/app.css) and a touch screen's pointer: where a slip is likely. */
const PHONE = "(max-width: 600px), (pointer: coarse)";

/** Whether the setting is on: the remembered choice, else on for a phone. */
export function confirmWanted() {
  const kept = localStorage.getItem(CONFIRM);
  if (kept !== null) return kept === "1";
  return typeof window.matchMedia === "function" && window.matchMedia(PHONE).matches;
}

/** Remember the choice. @param {boolean} on */
export function setConfirm(on) { localStorage.setItem(CONFIRM, on ? "1" : "0"); }
