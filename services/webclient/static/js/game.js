// The game page: draws a game from its view, lists my legal actions, follows the SSE stream, supports
// hot-seat play (one token per human seat in this browser) and replays finished games step by step.
import { api, ApiError, readEvents } from "./api.js";
import { actionLabel, eventText, h, isChance, seatColour, show, words } from "./dom.js";
import { refsOf, renderPicker } from "./actions.js";
import { findGame, mySeats } from "./store.js";
import * as opensky from "./boards/opensky.js";
import * as aeroplanes from "./boards/aeroplanes.js";
import * as blueskies from "./boards/blueskies.js";

const BOARDS = { opensky, aeroplanes, blueskies };
const $ = (id) => document.getElementById(id);
const params = new URLSearchParams(location.search);
const gameId = params.get("id");

const st = {
  seats: [], // my seats with tokens
  seat: null, // the seat I act as now
  game: null, // last GET /v1/games/{id}
  actions: [], // legal actions of st.seat
  boardData: null,
  filterRef: null,
  stream: null, // AbortController of the SSE reader
  lastEventVersion: 0,
  turnKey: "",
  turnSince: Date.now(),
  busy: false,
  replay: null, // {step, steps} while replaying
  loading: null,
};

const token = () => st.seats.find((x) => x.seat === st.seat)?.token || null;

function showError(err) {
  $("error").textContent = err ? (err.message || String(err)) + (err.rule ? ` (rule ${err.rule})` : "") : "";
}

async function loadBoardData(game) {
  if (!st.boardData) st.boardData = await api(`/webclient/boards/${encodeURIComponent(game)}`);
  return st.boardData;
}

/**
 * Fetch the game (as my current seat) and my legal actions, then redraw. Calls made while one is running
 * only raise the version wanted, so a burst of stream events costs one more fetch at most.
 */
async function refresh(minVersion = 0) {
  st.want = Math.max(st.want || 0, minVersion);
  if (st.loading) return st.loading;
  st.loading = (async () => {
    for (;;) {
      try {
        const g = await api(`/v1/games/${encodeURIComponent(gameId)}`, { token: token() });
        if (autoSwitch(g.status, g.to_act)) continue; // fetch again as the seat that must act
        st.game = g;
        st.actions = token() && g.status === "active" && g.to_act.includes(st.seat)
          ? (await api(`/v1/games/${encodeURIComponent(gameId)}/actions`, { token: token() })).actions : [];
        await loadBoardData(g.game);
        if (!st.replay) render();
        if (g.version >= st.want || g.status === "finished") break;
      } catch (err) {
        showError(err);
        break;
      }
    }
  })();
  try { await st.loading; } finally { st.loading = null; }
}

/** Hot-seat: if my current seat need not act but another of my seats must, act as that one. */
function autoSwitch(status, toAct) {
  if (!$("auto-seat").checked || status !== "active" || toAct.includes(st.seat)) return false;
  const next = st.seats.find((x) => toAct.includes(x.seat));
  if (!next) return false;
  selectSeat(next.seat);
  return true;
}

function selectSeat(seat) {
  if (seat === st.seat) return;
  st.seat = seat;
  $("seat-select").value = String(seat);
  st.filterRef = null;
  openStream();
}

function render() {
  const g = st.game;
  const view = g.view;
  document.title = `${g.game} · ${g.game_id} · Skyboard`;
  $("title").textContent = `${findGame(gameId)?.title || g.game} · game ${g.game_id}`;
  $("game-status").textContent = `${g.status === "finished" ? "Finished" : "Active"} · version ${g.version}`;
  const bots = g.bots || {};
  const who = g.to_act.map((s) => `Seat ${s}${bots[s] ? ` (bot ${bots[s]})` : st.seats.some((x) => x.seat === s) ? " (you)" : ""}`);
  $("turn").textContent = g.status === "finished" ? "Game over" : `To act: ${who.join(", ") || "nobody"}`;
  const key = `${g.to_act.join(",")}@${g.status}`;
  if (key !== st.turnKey) { st.turnKey = key; st.turnSince = Date.now(); }
  tick();
  drawBoard(view);
  renderActions();
  renderMe(view);
  renderSeats(g);
  renderOther(view);
  renderFinal(g);
}

function drawBoard(view, interactive = true) {
  const game = st.game?.game || st.replay?.game;
  const board = BOARDS[game];
  const refs = new Set();
  if (interactive) st.actions.forEach((a) => refsOf(a).forEach((r) => refs.add(r)));
  const pick = { refs, onPick: (ref) => pickRef(ref) };
  if (!board || !st.boardData) {
    $("board").replaceChildren(h("pre", {}, JSON.stringify(view, null, 1)));
    $("board-extra").replaceChildren();
    return;
  }
  const [svg, ...extra] = board.draw(view, st.boardData, pick);
  if (st.filterRef) svg.querySelectorAll(`[data-ref="${CSS.escape(st.filterRef)}"]`).forEach((el) => el.classList.add("selected"));
  $("board").replaceChildren(svg);
  $("board-extra").replaceChildren(...extra);
}

/** A board element was clicked: play the only action naming it, or narrow the picker to those actions. */
function pickRef(ref) {
  const matching = st.actions.filter((a) => refsOf(a).has(ref));
  if (matching.length === 1) { play(matching[0]); return; }
  st.filterRef = ref;
  render();
  $("action-list").querySelector("button")?.focus();
}

function renderActions() {
  const filter = $("actions-filter");
  filter.hidden = !st.filterRef;
  filter.replaceChildren(...(st.filterRef ? [`Showing the actions naming ${st.filterRef}. `,
    h("button", { type: "button", class: "small", onclick: () => { st.filterRef = null; render(); } }, "Show all")] : []));
  const g = st.game;
  $("actions-h").textContent = st.seat === null ? "Spectating" : `Your actions (seat ${st.seat})`;
  if (g.status === "finished") { $("action-list").replaceChildren(h("p", { class: "muted" }, "The game is over.")); return; }
  renderPicker($("action-list"), st.actions, play, st.filterRef);
}

async function play(action) {
  if (st.busy) return;
  st.busy = true;
  document.body.classList.add("busy");
  let version = 0;
  try {
    const done = await api(`/v1/games/${encodeURIComponent(gameId)}/actions`, {
      method: "POST", token: token(), body: { action, expected_version: st.game.version },
      headers: { "Idempotency-Key": `${st.seat}-${st.game.version}-${Math.random().toString(36).slice(2)}` },
    });
    showError(null);
    $("notice").textContent = "";
    st.filterRef = null;
    version = done.version;
    autoSwitch(done.status, done.to_act);
  } catch (err) {
    if (err instanceof ApiError && err.status === 409) {
      $("notice").textContent = "The game moved on before your action arrived (another seat acted); choose again.";
    } else {
      showError(err);
    }
  } finally {
    st.busy = false;
    document.body.classList.remove("busy");
  }
  await refresh(version);
}

function kv(obj) {
  return h("dl", { class: "kv" }, Object.entries(obj).flatMap(([k, v]) => [h("dt", {}, words(k)), h("dd", {}, show(v))]));
}

function renderMe(view) {
  const me = $("me");
  if (st.seat === null) { me.replaceChildren(h("p", { class: "muted" }, "You hold no seat in this game.")); return; }
  const mine = Array.isArray(view.players) ? view.players.find((p) => p.seat === st.seat) : null;
  const own = {};
  if (view.hand) own.hand = view.hand;
  for (const [k, v] of Object.entries(view)) {
    if (Array.isArray(v) && v.length === st.game.players && !v.some((x) => x && typeof x === "object") && k !== "to_act") {
      own[k] = v[st.seat];
    }
  }
  me.replaceChildren(h("p", {}, h("span", { class: "swatch", style: `background:${seatColour(st.seat)}` }), ` Seat ${st.seat}`),
    kv({ ...own, ...(mine || {}) }));
}

/** Every seat's public state, one column per seat (few seats, many attributes: fits a side panel). */
function renderSeats(g) {
  const view = g.view;
  const n = g.players;
  const rows = new Map();
  const objs = Array.isArray(view.players) ? view.players : [];
  objs.forEach((p) => Object.keys(p).forEach((k) => k !== "seat" && k !== "hand" && rows.set(k, (i) => objs[i]?.[k])));
  for (const [k, v] of Object.entries(view)) {
    if (Array.isArray(v) && v.length === n && k !== "to_act" && !v.some((x) => x && typeof x === "object")) rows.set(k, (i) => v[i]);
  }
  const bots = g.bots || {};
  const seats = Array.from({ length: n }, (_, i) => i);
  const who = (i) => (bots[i] ? `bot ${bots[i]}` : st.seats.some((x) => x.seat === i) ? "you" : "");
  $("seats").replaceChildren(h("table", { class: "grid-table seats-table" },
    h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "Seat"), seats.map((i) => h("th", { scope: "col", class: i === st.seat ? "me" : "" },
      h("span", { class: "swatch", style: `background:${seatColour(i)}` }), ` ${i} ${who(i)}${g.to_act.includes(i) ? " ▶ to act" : ""}`)))),
    h("tbody", {}, [...rows].map(([k, get]) => h("tr", {}, h("th", { scope: "row" }, words(k)),
      seats.map((i) => h("td", { class: i === st.seat ? "me" : "" }, show(get(i)))))))));
}

function renderOther(view) {
  const drawn = new Set(["players", "to_act", "seat", "game", "hand", ...(BOARDS[st.game.game]?.drawnKeys || [])]);
  const rest = Object.fromEntries(Object.entries(view).filter(([k, v]) => !drawn.has(k) &&
    !(Array.isArray(v) && v.length === st.game.players && !v.some((x) => x && typeof x === "object"))));
  $("other").replaceChildren(kv(rest));
}

function renderFinal(g) {
  const done = g.status === "finished";
  $("final").hidden = !done;
  $("replay-open").hidden = !done;
  if (!done) return;
  $("final-scores").replaceChildren(...g.scores.map((score, seat) => h("li", { "data-seat": seat, "data-score": score },
    h("span", { class: "swatch", style: `background:${seatColour(seat)}` }), ` Seat ${seat}: `, h("b", {}, String(score)),
    g.winners.includes(seat) ? " — winner" : "")));
  $("winners").textContent = `Winner${g.winners.length > 1 ? "s" : ""}: ${g.winners.map((w) => `seat ${w}`).join(", ")}`;
}

function logEvent(ev, version) {
  const item = h("li", { class: isChance(ev) ? "chance-ev" : "" }, h("span", { class: "v" }, `v${version}`), " ", eventText(ev));
  const log = $("log");
  log.prepend(item);
  while (log.children.length > 300) log.lastChild.remove();
  if (isChance(ev)) $("chance").textContent = eventText(ev);
}

/** Follow the game's SSE stream as my current seat; every `state` event triggers a refresh. */
function openStream() {
  st.stream?.abort();
  const ctrl = new AbortController();
  st.stream = ctrl;
  let ended = false;
  const path = `/v1/games/${encodeURIComponent(gameId)}/events?after=${st.lastEventVersion}`;
  readEvents(path, {
    token: token(), signal: ctrl.signal,
    onEvent: ({ event, id, data }) => {
      const version = Number(id);
      if (event === "message") {
        logEvent(data, version);
      } else if (event === "state" || event === "end") {
        if (event === "end") ended = true;
        st.lastEventVersion = Math.max(st.lastEventVersion, version);
        if (!st.game || version > st.game.version || event === "end") refresh(version);
      } else if (event === "error") {
        showError(new Error(data?.error?.message || "stream error"));
      }
    },
  }).then(() => resume(), (err) => {
    if (!ctrl.signal.aborted) showError(err);
    resume();
  });
  // the server closes the stream after `end`; any other close is a dropped connection: resume from the last version
  function resume() {
    setTimeout(() => {
      if (st.stream === ctrl && !ctrl.signal.aborted && !ended && st.game?.status !== "finished") openStream();
    }, 1000);
  }
}

// ---------------------------------------------------------------- replay

async function showReplayStep(step) {
  const ticket = (st.replaySeq = (st.replaySeq || 0) + 1);
  const r = await api(`/webclient/replay/${encodeURIComponent(gameId)}?step=${step}`);
  if (ticket !== st.replaySeq) return; // a later step was asked for meanwhile (dragging the slider)
  st.replay = { ...r };
  await loadBoardData(r.game);
  $("replay-step").max = r.steps;
  $("replay-step").value = r.step;
  $("replay-info").textContent = r.step === 0 ? `Setup (step 0 of ${r.steps})`
    : `Step ${r.step} of ${r.steps}: seat ${r.seat} — ${actionLabel(r.action)}`;
  drawBoard(r.view, false);
  $("log").replaceChildren(...r.events.map((ev) => h("li", { class: isChance(ev) ? "chance-ev" : "" }, eventText(ev))));
  const chance = r.events.filter(isChance);
  $("chance").textContent = chance.length ? chance.map(eventText).join(" · ") : "—";
  $("turn").textContent = r.to_act.length ? `To act: ${r.to_act.map((x) => `seat ${x}`).join(", ")}` : "Game over";
  renderSeats({ ...st.game, view: r.view, to_act: r.to_act });
  $("me").replaceChildren(h("p", { class: "muted" }, "The replay shows the public view of each step."));
  renderOther(r.view);
}

function openReplay() {
  $("replay").hidden = false;
  $("actions").hidden = true;
  st.stream?.abort();
  const go = (step) => showReplayStep(Math.max(0, Math.min(step, st.replay?.steps ?? step))).catch(showError);
  $("replay-first").onclick = () => go(0);
  $("replay-prev").onclick = () => go((st.replay?.step ?? 1) - 1);
  $("replay-next").onclick = () => go((st.replay?.step ?? -1) + 1);
  $("replay-last").onclick = () => go(st.replay?.steps ?? 0);
  $("replay-step").oninput = () => go(Number($("replay-step").value));
  go(0);
}

// ---------------------------------------------------------------- start

const mmss = (sec) => `${Math.floor(sec / 60)}:${String(sec % 60).padStart(2, "0")}`;

/** With a turn clock: the time left of each seat that must act (from `deadlines`); without: time on this turn. */
function tick() {
  const g = st.game;
  const clock = $("clock");
  const deadlines = g?.turn_seconds ? g.deadlines || {} : null;
  $("clock-label").textContent = deadlines ? "Time left" : "Turn clock";
  clock.setAttribute("aria-label", deadlines ? "time left to decide" : "time on this turn");
  if (!g || g.status === "finished") { clock.textContent = "—"; return; }
  if (!deadlines) { clock.textContent = mmss(Math.floor((Date.now() - st.turnSince) / 1000)); return; }
  const running = g.to_act.filter((s) => deadlines[s] !== undefined);
  const left = (s) => mmss(Math.max(0, Math.ceil((deadlines[s] - Date.now()) / 1000)));
  clock.textContent = running.length === 1 ? left(running[0])
    : running.map((s) => `seat ${s} ${left(s)}`).join(" · ") || "—";
  clock.classList.toggle("low", running.some((s) => deadlines[s] - Date.now() < 10_000));
}

async function main() {
  if (!gameId) { showError(new Error("No game id in the address (game.html?id=...).")); return; }
  // seat tokens come only from this browser's storage, never from the address (addresses get logged)
  st.seats = mySeats(gameId);
  const sel = $("seat-select");
  sel.replaceChildren(...st.seats.map((x) => h("option", { value: x.seat }, `Seat ${x.seat}`)),
    h("option", { value: "" }, "Spectator"));
  st.seat = st.seats.length ? st.seats[0].seat : null;
  sel.value = st.seat === null ? "" : String(st.seat);
  sel.addEventListener("change", () => {
    $("auto-seat").checked = false;
    st.seat = sel.value === "" ? null : Number(sel.value);
    st.filterRef = null;
    openStream();
    refresh();
  });
  $("replay-open").addEventListener("click", openReplay);
  setInterval(tick, 1000);
  await refresh();
  if (params.get("replay") && st.game?.status === "finished") openReplay();
  else openStream();
}

main();
