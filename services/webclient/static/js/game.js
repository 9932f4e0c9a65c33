// @ts-check
// The game page's controller: fetches the game and my legal actions, redraws, lists the actions in the rulebook's
// words and plays the chosen one. A board choice is staged first and sent only once confirmed (a click can land on a
// crossing of routes); so is a choice from the list while "Confirm moves" is on (game/confirm.js). What the game lets
// a seat take back (within its turn, until something hidden is revealed) has a Take back button.
// Hot-seat play: one token per human seat in this browser.
// The parts live in game/: state, stream, replay, end screen, clock, notifications, board, panels, players, log;
// the games themselves in games/registry.js.
import { api, ApiError, backoff, retryListeners } from "./api.js";
import { h, seatColour } from "./dom.js";
import { refsOf, renderPicker } from "./actions.js";
import { joinAnd, loadCatalogue, localize, say, section, ui } from "./i18n.js";
import { mySeats, saveGame } from "./store.js";
import { panZoom } from "./panzoom.js";
import { rulesFor, showWithRules, splitRules } from "./rules.js";
import { CLICK_RADIUS, nearTargets, resolveClick, resolveTap } from "./taps.js";
import { $, $input, $select, computeNames, ctxFor, gameId, nameOf, params, pres, setOffline, showError, st, title, token } from "./game/state.js";
import { drawBoard, fitToFrame, markLastMove, previewOnBoard, setZoom, zoomToRead } from "./game/board.js";
import { tick } from "./game/clock.js";
import { renderFinal } from "./game/endscreen.js";
import { forgetMoves, logEvent } from "./game/log.js";
import { announceTurn, notifyWanted, setFavicon, setNotify } from "./game/notify.js";
import { startTurnNotifications } from "./turn_notify.js";
import { confirmWanted, setConfirm } from "./game/confirm.js";
import { phaseLine, renderMe, renderTable } from "./game/panels.js";
import { renderPlayers } from "./game/players.js";
import { openReplay } from "./game/replay.js";
import { openStream } from "./game/stream.js";

/** @typedef {import("./types.js").Action} Action */
/** @typedef {import("./types.js").Game} Game */

/** @param {string} game */
async function loadBoardData(game) {
  if (!st.boardData) st.boardData = await api(`/webclient/boards/${encodeURIComponent(game)}`);
  return st.boardData;
}

/** Two actions are the same choice. @param {Action} a @param {Action} b */
const sameAction = (a, b) => JSON.stringify(a) === JSON.stringify(b);

/**
 * Fetch the game (as my current seat) and my legal actions, then redraw. Calls made while one is running
 * only raise the version wanted, so a burst of stream events costs one more fetch at most. A failure (after
 * api()'s own retries) schedules another attempt: the page never stays on a stale version.
 */
async function refresh(minVersion = 0) {
  st.want = Math.max(st.want, minVersion);
  if (st.loading) {
    await st.loading;
    // the load joined may have ended short of the wanted version (its request refused once a resign revoked the
    // seat's token, say): load again rather than leave the page on a state older than the caller's own call
    if (!st.game || st.game.status !== "active" || st.game.version >= st.want) return;
    return refresh(minVersion);
  }
  st.loading = (async () => {
    for (let attempt = 0; ; attempt++) {
      try {
        /** @type {Game} */
        const g = await api(`/v1/games/${encodeURIComponent(gameId)}`, { token: token() });
        if (autoSwitch(g.status, g.to_act)) continue; // fetch again as the seat that must act
        /** @type {Action[]} */
        const actions = token() && st.seat !== null && g.status === "active" && g.to_act.includes(st.seat)
          ? (await api(`/v1/games/${encodeURIComponent(gameId)}/actions`, { token: token() })).actions : [];
        await loadBoardData(g.game);
        st.game = g;
        st.actions = actions;
        const staged = st.staged;
        if (staged && !actions.some((a) => sameAction(a, staged.action))) st.staged = null; // the game moved on
        if (!st.names.length) await computeNames(g);
        showError(null);
        setOffline(false);
        if (!st.replay) render();
        document.body.classList.remove("loading"); // the page appears once, drawn: no layout shift
        if (!st.replay) takeOnlyChoice();
        if (g.version >= st.want || g.status !== "active") break;
      } catch (err) {
        if (err instanceof ApiError) showError(err);
        else { // no answer at all (api() retried already): the connection, not the game, is the trouble
          showError(null);
          setOffline(true);
          $("notice").textContent = ui("reconnecting");
        }
        document.body.classList.remove("loading");
        if (err instanceof ApiError && [401, 403, 404].includes(err.status)) break;
        await new Promise((r) => setTimeout(r, backoff(Math.min(attempt, 5))));
      }
    }
  })();
  try { await st.loading; } finally { st.loading = null; }
}

/** The stream's events: log lines, and a new version to catch up with. */
const streamHandlers = {
  onMessage: logEvent,
  /** @param {number} version @param {boolean} ended */
  onState(version, ended) {
    if (!st.game || version > st.game.version || ended) refresh(version);
    else markLastMove();
  },
  onReconnect() { refresh(); },
};
const follow = () => openStream(streamHandlers);

/** Hot-seat: if my current seat need not act but another of my seats must, act as that one.
 * @param {string} status @param {number[]} toAct */
function autoSwitch(status, toAct) {
  if (!$input("auto-seat").checked || status !== "active" || (st.seat !== null && toAct.includes(st.seat))) return false;
  const next = st.seats.find((x) => toAct.includes(x.seat));
  if (!next) return false;
  selectSeat(next.seat);
  return true;
}

/** @param {number} seat */
function selectSeat(seat) {
  if (seat === st.seat) return;
  st.seat = seat;
  $select("seat-select").value = String(seat);
  st.filterRefs = null;
  st.staged = null;
  follow();
}

function render() {
  const g = st.game;
  if (!g) return;
  const view = g.view;
  document.body.dataset.version = String(g.version);
  document.body.dataset.status = g.status;
  $("title").textContent = title();
  const myTurn = g.status === "active" && g.to_act.some((s) => st.seats.some((x) => x.seat === s));
  document.title = g.status === "finished" ? ui("title_over", { title: title() })
    : g.status === "aborted" ? ui("title_aborted", { title: title() })
      : ui(myTurn ? "title_your_turn" : "title_waiting", { title: title() });
  setFavicon(myTurn ? seatColour(st.seat ?? 0) : g.status === "finished" ? "#2b8a3e" : "#8896a3", myTurn);
  renderTableControls(g);
  renderTakeBack(g);
  // only bots to act: say they are thinking (their cards count the seconds), not a bare list of names
  const botsThinking = g.status === "active" && g.to_act.length > 0 && g.to_act.every((s) => !!(g.bots || {})[String(s)]);
  $("turn").textContent = g.status === "finished" ? ui("game_over") : g.status === "aborted" ? ui("game_aborted")
    : myTurn && g.to_act.length === 1 ? `${ui("your_turn")} (${nameOf(g.to_act[0])})`
      : botsThinking ? ui("bots_thinking", { names: joinAnd(g.to_act.map(nameOf)), n: g.to_act.length })
        : ui("to_act", { names: g.to_act.map(nameOf).join(", ") || ui("nobody") });
  $("turn").classList.toggle("mine", myTurn);
  announceTurn(myTurn, g);
  $("game-status").textContent = phaseLine(view);
  const key = `${g.version}@${g.to_act.join(",")}@${g.status}`;
  if (key !== st.turnKey) { st.turnKey = key; st.turnSince = Date.now(); }
  tick();
  renderPlayers(g, view, g.to_act);
  drawBoard(view, pickRef);
  renderActions();
  renderMe(view);
  renderTable(view);
  renderFinal(g);
  if (st.refocus) {
    st.refocus = false;
    const first = /** @type {HTMLElement | null} */ ($("action-list").querySelector("button, select"));
    (first || $("actions-h")).focus({ preventScroll: false });
  }
}

/**
 * A board element was chosen. A mouse click is resolved by distance (taps.js resolveClick), not by which element is
 * drawn on top: on a crossing of routes the actions of both are listed. The keyboard (event null) and a card button
 * name their element exactly.
 * @param {string} ref @param {MouseEvent | null} [event]
 */
function pickRef(ref, event = null) {
  const svg = $("board").querySelector("svg");
  if (event && event.detail > 0 && svg) {
    const choice = resolveClick(nearTargets(svg, event.clientX, event.clientY, CLICK_RADIUS));
    if (choice && "near" in choice) { narrowTo(choice.near); return; }
    if (choice && "pick" in choice) ref = choice.pick;
  }
  choose(ref);
}

/** The only action naming `ref` is staged for confirmation; several are listed to choose from. @param {string} ref */
function choose(ref) {
  const matching = st.actions.filter((a) => refsOf(a).has(ref));
  if (matching.length === 1) stage(matching[0], ref);
  else narrowTo([ref]);
}

/** Stage `action` (chosen on the board at `ref`, or from the list: null): nothing is sent until its Confirm button is
 * pressed. @param {Action} action @param {string | null} ref */
function stage(action, ref) {
  st.staged = { action, ref };
  st.filterRefs = ref === null ? st.filterRefs : [ref];
  render();
  /** @type {HTMLElement | null} */ ($("action-list").querySelector("button.confirm"))?.focus();
}

/** A choice from the action list: staged for its Confirm button while "Confirm moves" is on, else played.
 * @param {Action} action */
function pickAction(action) {
  if (confirmWanted()) stage(action, null);
  else play(action);
}

/**
 * A decision with one choice only, of a kind the game makes for the player then (an Aeroplanes target reached by one
 * route, AE-8.2: the engine still asks for the route): staged for its Confirm button while "Confirm moves" is on,
 * else played, with a note saying so. Once a position, and never on the position a take-back restored (the player
 * is going back through their decisions: playing it again would undo the take-back). Called after every load and
 * after every move of mine (a load while my move is under way leaves it to the move's end).
 */
function takeOnlyChoice() {
  const g = st.game;
  const only = st.actions.length === 1 ? st.actions[0] : null;
  if (!g || !only || !pres().PLAY_WHEN_ONLY.includes(only.type) || st.staged || st.busy || st.tookBack
    || st.onlyChoiceAt === g.version || g.status !== "active" || st.replay) return;
  st.onlyChoiceAt = g.version;
  const note = ui("only_choice", { action: say(g.game, "action", only, pres(), ctxFor(g.view)) });
  if (confirmWanted()) {
    stage(only, null);
    $("notice").textContent = note;
    return;
  }
  setTimeout(async () => { // after the load under way has ended: play() waits for the position that follows
    await play(only);
    if (!$("error").textContent) $("notice").textContent = note;
  }, 0);
}

/** Back to every action, nothing staged. */
function showAll() {
  st.staged = null;
  st.filterRefs = null;
  render();
}

/** Narrow the picker to the actions naming any of `refs` and move focus (and the page) to its first choice.
 * @param {string[]} refs */
function narrowTo(refs) {
  st.staged = null;
  st.filterRefs = refs;
  render();
  /** @type {HTMLElement | null} */ ($("action-list").querySelector("button, select"))?.focus();
}

/** A touch tap on the board: the one target near the finger, or the actions of every target near it (taps.js).
 * @param {{x: number, y: number}} point */
function tapBoard(point) {
  const svg = $("board").querySelector("svg");
  const choice = svg ? resolveTap(nearTargets(svg, point.x, point.y)) : null;
  if (!choice) return false;
  if ("pick" in choice) choose(choice.pick);
  else narrowTo(choice.near);
  return true;
}

function renderActions() {
  const g = st.game;
  if (!g) return;
  const ctx = ctxFor(g.view);
  const p = pres();
  const filter = $("actions-filter");
  filter.hidden = !st.filterRefs;
  const what = (st.filterRefs || []).map((ref) => p.refLabel(ref, ctx) || ref).join("; ");
  filter.replaceChildren(...(st.filterRefs ? [ui(st.filterRefs.length > 1 ? "showing_actions_near" : "showing_actions_for", { what }), " ",
    h("button", { type: "button", class: "small", onclick: showAll }, ui("show_all"))] : []));
  $("actions-h").textContent = st.seat === null ? ui("spectating") : ui("your_actions", { name: nameOf(st.seat) });
  const note = p.actionNote(g.view, st.seat, ctx);
  showWithRules($("phase"), [section(g.game, "phase")[g.view.phase] || "", note || ""].filter(Boolean).join(" "), null,
    rulesFor(`${g.game}/phase/${g.view.phase}`));
  if (g.status !== "active") {
    $("action-list").replaceChildren(h("p", { class: "muted" }, g.status === "aborted" ? ui("aborted_note") : ui("game_over_note")));
    return;
  }
  if (!st.actions.length) {
    $("action-list").replaceChildren(h("p", { class: "muted" }, g.to_act.length ? ui("waiting_for", { names: g.to_act.map(nameOf).join(", ") }) : ui("nothing_to_do")));
    return;
  }
  /** @type {Record<string, string>} */
  const rules = Object.fromEntries(/** @type {[string, string][]} */ (/** @type {unknown} */ (section(g.game, "rules"))));
  const groups = section(g.game, "group");
  const describe = {
    label: (/** @type {Action} */ a) => say(g.game, "action", a, p, ctx),
    hint: (/** @type {Action} */ a) => { const text = p.hint(a, ctx); return text && splitRules(text).text; }, // the rule: the title
    tooltip: (/** @type {Action} */ a) => { const id = p.RULE_OF[a.type]; return id && rules[id] ? `${id}: ${rules[id]}` : null; },
    group: (/** @type {string} */ type) => groups[type] || type.replace(/_/g, " "),
    choiceGroup: (/** @type {Action} */ a) => p.choiceGroup(a, ctx),
    rank: (/** @type {Action} */ a) => p.rank(a, ctx),
    preview: previewOnBoard,
    // the places an action names, in the page's language, for the filter of a long list ("Лондон" finds LHR–CDG)
    search: (/** @type {Action} */ a) => [...refsOf(a)].flatMap((r) => [r, ...(r.includes("-") ? r.split("-") : [])])
      .map((r) => p.refLabel(r, ctx) || "").join(" "),
  };
  if (st.staged) {
    const a = st.staged.action;
    const hint = describe.hint(a);
    $("action-list").replaceChildren(h("fieldset", { class: "action-group confirm-group" }, h("legend", {}, ui("confirm_heading")),
      h("button", { type: "button", class: "action confirm", "data-type": a.type, title: describe.tooltip(a), onclick: () => play(a) },
        ui("confirm_play", { action: describe.label(a) }), hint ? h("span", { class: "hint" }, hint) : null),
      h("button", { type: "button", class: "cancel-choice", onclick: showAll }, ui("cancel_choice"))));
    return;
  }
  renderPicker($("action-list"), st.actions, pickAction, st.filterRefs, describe);
}

/** The Take back button: shown to my seat while the game lets it take back its last decision. @param {Game} g */
function renderTakeBack(g) {
  const row = $("take-back-row");
  row.hidden = !(g.take_back && token() !== null && g.status === "active");
  $("take-back").textContent = ui("take_back");
}

/** Post one decision of my seat to `/v1/games/{id}/<path>` (with the version it was made at and one idempotency key
 * for every retry), then stay busy until the page shows the position that follows: no click on a stale button.
 * `onDone` gets the service's answer; a 409 shows `conflict` (the game moved on meanwhile). False if nothing was sent.
 * @param {string} path @param {object} body @param {string} conflict @param {(done: any) => void} onDone */
async function submit(path, body, conflict, onDone) {
  const game = st.game;
  if (st.busy || !game) return false;
  st.busy = true;
  st.refocus = true;
  document.body.classList.add("busy");
  let version = 0;
  const key = `${st.seat}-${game.version}-${path}-${Math.random().toString(36).slice(2)}`;
  try {
    const done = await api(`/v1/games/${encodeURIComponent(gameId)}/${path}`, {
      method: "POST", token: token(), body: { ...body, expected_version: game.version },
      headers: { "Idempotency-Key": key },
    });
    showError(null);
    st.filterRefs = null;
    st.staged = null;
    onDone(done);
    version = done.version;
  } catch (err) {
    if (err instanceof ApiError && err.status === 409) $("notice").textContent = conflict;
    else showError(err);
  }
  try {
    await refresh(version);
  } finally {
    st.busy = false;
    document.body.classList.remove("busy");
  }
  return true;
}

/** Take back my seat's last decision (POST take-back), then show the position it restores. */
async function takeBack() {
  await submit("take-back", {}, ui("take_back_refused"), () => {
    $("notice").textContent = ui("taken_back_note");
    st.tookBack = true;
  });
}

/** Send `action` for my seat, then stay busy until the page shows the position that follows. @param {Action} action */
async function play(action) {
  const sent = await submit("actions", { action }, ui("moved_on"), (done) => {
    $("notice").textContent = "";
    st.tookBack = false;
    forgetMoves();
    autoSwitch(done.status, done.to_act);
  });
  if (sent) takeOnlyChoice();
}

/** Resign and abort, for a seat I hold in a running game (abort only while the rules allow it: the service says).
 * @param {Game} g */
function renderTableControls(g) {
  const mine = token() !== null && g.status === "active";
  const left = (g.seats || []).find((s) => s.seat === st.seat)?.status !== "active";
  $("resign").hidden = !mine || left;
  $("abort").hidden = !mine || left;
  $("resign").textContent = ui("resign");
  $("abort").textContent = ui("abort");
}

/** POST resign or abort for the current seat after the player confirms (both are irreversible).
 * @param {"resign" | "abort"} kind */
async function tableAction(kind) {
  const question = kind === "resign" ? ui("confirm_resign", { name: nameOf(st.seat) }) : ui("confirm_abort");
  if (!window.confirm(question)) return;
  let created = 0; // the version the call created: the page must show it, not a load begun before the call
  try {
    const answer = await api(`/v1/games/${encodeURIComponent(gameId)}/${kind}`, { method: "POST", token: token() });
    created = answer?.version ?? 0;
    $("notice").textContent = kind === "resign" ? ui("resigned_note", { name: nameOf(st.seat) }) : ui("aborted_note");
    if (kind === "resign") {  // the seat's token is revoked: forget it here and watch as a spectator
      if (st.seat !== null) saveGame({ game_id: gameId, seats: [{ seat: st.seat, token: null, bot: null }] });
      st.seats = mySeats(gameId);
      st.seat = st.seats.length ? st.seats[0].seat : null;
      follow();
    }
  } catch (err) {
    if (err instanceof ApiError && err.code === "abort_not_allowed") $("notice").textContent = ui("abort_not_allowed");
    else showError(err);
  }
  // refresh() joins a load already under way, which may have read the game before the call; asking for the
  // version the call created makes that load read again until it sees it (a resign that ends the game comes as
  // no later stream event: the page stayed "active" for 90 s once in CI)
  await refresh(created);
}

async function main() {
  try { await loadCatalogue(); localize(); } catch (err) { showError(err); }
  if (!gameId) { showError(new Error(ui("no_game_id"))); return; }
  retryListeners.add((wait, reason) => {
    const seconds = Math.ceil(wait / 1000);
    setOffline(wait > 0 && (reason === "offline" || !navigator.onLine));
    $("notice").textContent = !wait ? "" : reason === "offline" || !navigator.onLine ? ui("reconnecting_in", { seconds })
      : ui("busy_server", { seconds });
  });
  // the browser knows first: say so at once, and catch up the moment the network is back
  window.addEventListener("offline", () => { setOffline(true); $("notice").textContent = ui("reconnecting"); });
  window.addEventListener("online", () => { follow(); refresh(); });
  // Escape takes a staged or narrowed board choice back
  document.addEventListener("keydown", (e) => { if (e.key === "Escape" && (st.staged || st.filterRefs)) showAll(); });
  // seat tokens come only from this browser's storage, never from the address (addresses get logged)
  st.seats = mySeats(gameId);
  const sel = $select("seat-select");
  st.seat = st.seats.length ? st.seats[0].seat : null;
  sel.addEventListener("change", () => {
    $input("auto-seat").checked = false;
    st.seat = sel.value === "" ? null : Number(sel.value);
    st.filterRefs = null;
    st.staged = null;
    follow();
    refresh();
  });
  $("replay-open").addEventListener("click", openReplay);
  $input("notify-turn").checked = notifyWanted();
  $input("notify-turn").addEventListener("change", () => setNotify($input("notify-turn").checked));
  $input("confirm-moves").checked = confirmWanted();
  $input("confirm-moves").addEventListener("change", () => setConfirm($input("confirm-moves").checked));
  $("take-back").addEventListener("click", takeBack);
  $("resign").addEventListener("click", () => tableAction("resign"));
  $("abort").addEventListener("click", () => tableAction("abort"));
  $("zoom-in").addEventListener("click", () => setZoom(st.zoom * 1.5));
  $("zoom-out").addEventListener("click", () => setZoom(st.zoom / 1.5));
  $("zoom-reset").addEventListener("click", () => setZoom(1));
  $("zoom-read").addEventListener("click", zoomToRead);
  addEventListener("resize", () => { // the whole board fits the frame it has now (a phone turned, a window resized)
    const svg = /** @type {SVGSVGElement | null} */ ($("board").querySelector("svg"));
    if (!svg) return;
    fitToFrame(svg);
    if (st.readable) zoomToRead();
    else setZoom(st.zoom);
  });
  panZoom($("board"), () => st.zoom, setZoom, tapBoard);
  setInterval(tick, 1000);
  await refresh();
  sel.replaceChildren(...st.seats.map((x) => h("option", { value: x.seat }, nameOf(x.seat))), h("option", { value: "" }, ui("spectator")));
  sel.value = st.seat === null ? "" : String(st.seat);
  $("seat-switch").hidden = st.seats.length < 2;
  if (params.get("replay") && st.game?.status === "finished") openReplay();
  else follow();
  startTurnNotifications(); // my other correspondence games' turns, when asked for in the lobby
}

main();
