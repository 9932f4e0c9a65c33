// @ts-check
// The status bar's clock: with a turn clock, the time left of each seat that must act (the game's `deadlines`);
// without one, the time spent on the decision in front of the players.
import { ui } from "../i18n.js";
import { tickThinking } from "./players.js";
import { $, nameOf, st } from "./state.js";

/** "m:ss". @param {number} sec */
export const mmss = (sec) => `${Math.floor(sec / 60)}:${String(sec % 60).padStart(2, "0")}`;

/** Redraw the clock (every second, and on every redraw of the page). */
export function tick() {
  const g = st.game;
  const clock = $("clock");
  /** @type {Record<string, number> | null} */
  const deadlines = g?.turn_seconds ? g.deadlines || {} : null;
  $("clock-label").textContent = ui(deadlines ? "clock_time_left" : "clock_on_decision");
  clock.setAttribute("aria-label", ui(deadlines ? "clock_time_left_aria" : "clock_on_decision_aria"));
  if (!g || g.status !== "active" || st.replay) { clock.textContent = "—"; return; }
  tickThinking();
  if (!deadlines) { clock.textContent = mmss(Math.floor((Date.now() - st.turnSince) / 1000)); return; }
  const running = g.to_act.filter((s) => deadlines[s] !== undefined);
  const left = (/** @type {number} */ s) => mmss(Math.max(0, Math.ceil((deadlines[s] - Date.now()) / 1000)));
  clock.textContent = running.length === 1 ? left(running[0])
    : running.map((s) => `${nameOf(s)} ${left(s)}`).join(" · ") || "—";
  clock.classList.toggle("low", running.some((s) => deadlines[s] - Date.now() < 10_000));
}
