// @ts-check
// Replaying a finished game step by step (GET /webclient/replay/{id}?step=N): the board, the players, the status bar
// and the log all show that step (its month, its move, who acts next), never the final position's.
import { api } from "../api.js";
import { h } from "../dom.js";
import { say, ui } from "../i18n.js";
import { drawBoard } from "./board.js";
import { eventLine, showEvents } from "./log.js";
import { kvList, phaseLine } from "./panels.js";
import { renderPlayers } from "./players.js";
import { tick } from "./clock.js";
import { $, $input, ctxFor, gameId, nameOf, pres, showError, st } from "./state.js";

/** @param {number} step */
async function showReplayStep(step) {
  const ticket = (st.replaySeq += 1);
  const r = /** @type {import("./state.js").ReplayStep} */ (await api(`/webclient/replay/${encodeURIComponent(gameId)}?step=${step}`));
  if (ticket !== st.replaySeq) return; // a later step was asked for meanwhile (dragging the slider)
  st.replay = { ...r };
  if (!st.boardData) st.boardData = await api(`/webclient/boards/${encodeURIComponent(r.game)}`);
  const slider = $input("replay-step");
  slider.max = String(r.steps);
  slider.value = String(r.step);
  const ctx = ctxFor(r.view);
  // a step without an action (a resignation, a timeout: the platform's) is told by its events
  const move = r.step === 0 ? "" : r.action ? say(r.game, "action", r.action, pres(), { ...ctx, me: r.seat })
    : r.events.map(eventLine).join(" · ");
  $("replay-info").textContent = r.step === 0 ? ui("replay_setup", { steps: r.steps })
    : ui("replay_step", { step: r.step, steps: r.steps, name: nameOf(r.seat), action: move });
  st.lastRefs = new Set(r.events.flatMap((ev) => pres().refsOfEvent(ev)));
  drawBoard(r.view, null);
  showEvents(r.events);
  // the status bar speaks of this step: its phase, its move, who acts next
  $("turn").textContent = r.to_act.length ? ui("to_act", { names: r.to_act.map(nameOf).join(", ") }) : ui("game_over");
  $("turn").classList.remove("mine");
  $("game-status").textContent = phaseLine(r.view);
  $("last-move").textContent = !move ? "" : ui("last_move", { text: r.action ? `${nameOf(r.seat)}: ${move}` : move });
  tick();
  if (st.game) renderPlayers({ ...st.game, status: r.to_act.length ? "active" : "finished" }, r.view, r.to_act, true);
  $("me").replaceChildren(h("p", { class: "muted" }, ui("replay_public")));
  $("table-info").replaceChildren(kvList(pres().tableInfo(r.view, ctx)));
}

/** Open the replay panel at the setup (step 0) and wire its buttons and slider. */
export function openReplay() {
  $("replay").hidden = false;
  $("actions").hidden = true;
  st.stream?.abort();
  document.body.classList.add("replaying");
  const go = (/** @type {number} */ step) => showReplayStep(Math.max(0, Math.min(step, st.replay?.steps ?? step))).catch(showError);
  $("replay-first").onclick = () => go(0);
  $("replay-prev").onclick = () => go((st.replay?.step ?? 1) - 1);
  $("replay-next").onclick = () => go((st.replay?.step ?? -1) + 1);
  $("replay-last").onclick = () => go(st.replay?.steps ?? 0);
  $input("replay-step").oninput = () => go(Number($input("replay-step").value));
  go(0);
}
