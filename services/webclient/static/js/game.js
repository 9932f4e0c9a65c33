// The game page: draws a game from its view, lists my legal actions in the rulebook's words, follows the SSE
// stream, supports hot-seat play (one token per human seat in this browser) and replays finished games.
// Every text comes from the catalogue (i18n.js) through the game's presentation module (games/<game>.js).
import { api, ApiError, backoff, readEvents, retryListeners } from "./api.js";
import { h, seatBadge, seatColour } from "./dom.js";
import { refsOf, renderPicker } from "./actions.js";
import { catalogue, errorText, loadCatalogue, localize, number, say, section, ui } from "./i18n.js";
import { findGame, mySeats, player, saveGame } from "./store.js";
import { panZoom } from "./panzoom.js";
import { nearTargets, resolveTap } from "./taps.js";
import * as opensky from "./boards/opensky.js";
import * as aeroplanes from "./boards/aeroplanes.js";
import * as blueskies from "./boards/blueskies.js";
import * as pOpensky from "./games/opensky.js";
import * as pAeroplanes from "./games/aeroplanes.js";
import * as pBlueskies from "./games/blueskies.js";

/** A value of a panel or table: a number as the language writes it (Intl.NumberFormat), anything else as text. */
const figure = (v) => (typeof v === "number" ? number(v) : String(v));

const BOARDS = { opensky, aeroplanes, blueskies };
const PRESENTERS = { opensky: pOpensky, aeroplanes: pAeroplanes, blueskies: pBlueskies };
const $ = (id) => document.getElementById(id);
const params = new URLSearchParams(location.search);
const gameId = params.get("id");

const st = {
  seats: [], // my seats with tokens
  seat: null, // the seat I act as now
  game: null, // last GET /v1/games/{id}
  actions: [], // legal actions of st.seat
  boardData: null,
  filterRefs: null, // board refs the action list is narrowed to (a tapped or clicked board element)
  stream: null, // AbortController of the SSE reader
  streamFailures: 0,
  lastEventVersion: 0,
  turnKey: "",
  turnSince: Date.now(),
  busy: false,
  replay: null, // {step, steps} while replaying
  loading: null,
  names: [],
  lastRefs: new Set(), // board refs named by the latest version's events
  lastVersion: -1,
  refocus: false,
  zoom: 1,
};

const token = () => st.seats.find((x) => x.seat === st.seat)?.token || null;
const pres = () => PRESENTERS[st.game?.game || st.replay?.game] || null;
const gameKey = () => st.game?.game || st.replay?.game;
/** The game's title in the catalogue's words (ui.game_title_<game>), else the lobby's record of it, else the brand. */
const title = () => catalogue().ui?.[`game_title_${gameKey()}`] || findGame(gameId)?.title || ui("brand");
const nameOf = (seat) => (seat === null || seat === undefined ? "—" : st.names[seat] || ui("player_n", { n: Number(seat) + 1 }));
const ctxFor = (view) => ({ game: gameKey(), view, data: st.boardData, name: nameOf, me: st.seat });

function showError(err) {
  const { text, detail } = errorText(err);
  $("error").textContent = text;
  if (detail) $("error").title = detail;
  else $("error").removeAttribute("title");
}

/** Player names: mine from the lobby (the player account's name), bots by level (not the zombie of a seat that
 * left: it stays its player's), other people "Player N". */
function computeNames(g) {
  const entry = findGame(gameId);
  const me = entry?.player || player()?.name || null;
  const mine = st.seats.map((x) => x.seat);
  const bots = g.bots || {};
  const count = {};
  const levels = Object.entries(bots).filter(([s]) => (g.seats || []).find((x) => x.seat === Number(s))?.kind !== "human")
    .map(([, l]) => l).reduce((m, l) => ({ ...m, [l]: (m[l] || 0) + 1 }), {});
  st.names = Array.from({ length: g.players }, (_, i) => {
    if (entry?.names?.[i]) return entry.names[i];
    // a resigned or abandoned seat is still its player's (kind "human"), whoever plays it out
    const level = (g.seats || []).find((x) => x.seat === i)?.kind === "human" ? null : bots[String(i)];
    if (level) {
      count[level] = (count[level] || 0) + 1;
      const base = ui("bot", { level: level.charAt(0).toUpperCase() + level.slice(1) });
      return levels[level] > 1 ? `${base} ${count[level]}` : base;
    }
    if (mine.includes(i) && me) return mine.length > 1 ? `${me} ${mine.indexOf(i) + 1}` : me;
    return ui("player_n", { n: i + 1 });
  });
}

async function loadBoardData(game) {
  if (!st.boardData) st.boardData = await api(`/webclient/boards/${encodeURIComponent(game)}`);
  return st.boardData;
}

/**
 * Fetch the game (as my current seat) and my legal actions, then redraw. Calls made while one is running
 * only raise the version wanted, so a burst of stream events costs one more fetch at most. A failure (after
 * api()'s own retries) schedules another attempt: the page never stays on a stale version.
 */
async function refresh(minVersion = 0) {
  st.want = Math.max(st.want || 0, minVersion);
  if (st.loading) return st.loading;
  st.loading = (async () => {
    for (let attempt = 0; ; attempt++) {
      try {
        const g = await api(`/v1/games/${encodeURIComponent(gameId)}`, { token: token() });
        if (autoSwitch(g.status, g.to_act)) continue; // fetch again as the seat that must act
        const actions = token() && g.status === "active" && g.to_act.includes(st.seat)
          ? (await api(`/v1/games/${encodeURIComponent(gameId)}/actions`, { token: token() })).actions : [];
        await loadBoardData(g.game);
        st.game = g;
        st.actions = actions;
        if (!st.names.length) computeNames(g);
        showError(null);
        setOffline(false);
        if (!st.replay) render();
        document.body.classList.remove("loading"); // the page appears once, drawn: no layout shift
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

/**
 * Offline: the choices on screen may be stale (the game can move on meanwhile), so they are hidden, not offered,
 * until the page is back in touch and has refreshed (css: body.offline; #offline-note says why).
 */
function setOffline(offline) {
  if (!offline && document.body.classList.contains("offline")) $("notice").textContent = ""; // back in touch
  document.body.classList.toggle("offline", offline);
  $("action-list").inert = offline;
  $("offline-note").hidden = !offline;
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
  st.filterRefs = null;
  openStream();
}

function render() {
  const g = st.game;
  const view = g.view;
  const ctx = ctxFor(view);
  document.body.dataset.version = String(g.version);
  document.body.dataset.status = g.status;
  $("title").textContent = title();
  const myTurn = g.status === "active" && g.to_act.some((s) => st.seats.some((x) => x.seat === s));
  document.title = g.status === "finished" ? ui("title_over", { title: title() })
    : g.status === "aborted" ? ui("title_aborted", { title: title() })
      : ui(myTurn ? "title_your_turn" : "title_waiting", { title: title() });
  setFavicon(myTurn ? seatColour(st.seat ?? 0) : g.status === "finished" ? "#2b8a3e" : "#8896a3", myTurn);
  renderTableControls(g);
  $("turn").textContent = g.status === "finished" ? ui("game_over") : g.status === "aborted" ? ui("game_aborted")
    : myTurn && g.to_act.length === 1 ? `${ui("your_turn")} (${nameOf(g.to_act[0])})`
      : ui("to_act", { names: g.to_act.map(nameOf).join(", ") || ui("nobody") });
  $("turn").classList.toggle("mine", myTurn);
  announceTurn(myTurn, g);
  $("game-status").textContent = phaseLine(view);
  const key = `${g.version}@${g.to_act.join(",")}@${g.status}`;
  if (key !== st.turnKey) { st.turnKey = key; st.turnSince = Date.now(); }
  tick();
  renderPlayers(g);
  drawBoard(view);
  renderActions();
  renderMe(view);
  renderTable(view);
  renderFinal(g);
  if (st.refocus) {
    st.refocus = false;
    const first = $("action-list").querySelector("button, select");
    (first || $("actions-h")).focus({ preventScroll: false });
  }
}

function phaseLine(view) {
  const p = pres();
  const bits = [];
  if (p?.tableInfo) {
    const info = p.tableInfo(view, ctxFor(view));
    bits.push(...info.slice(0, 1).map(([k, v]) => `${k} ${v}`));
  }
  return bits.join(" · ");
}

function setFavicon(colour, mine) {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><circle cx="16" cy="16" r="${mine ? 15 : 10}" fill="${colour}"/>` +
    (mine ? `<text x="16" y="22" font-size="16" text-anchor="middle" fill="#fff" font-family="sans-serif">!</text>` : "") + "</svg>";
  $("favicon").href = `data:image/svg+xml,${encodeURIComponent(svg)}`;
  document.body.classList.toggle("my-turn", mine);
}

/** Player panels, always in view: badge (colour + pattern + shape), name, score, public resources, whose turn. */
function renderPlayers(g, view = g.view, toAct = g.to_act) {
  const p = pres();
  if (!p) return;
  const bots = g.bots || {};
  $("players").replaceChildren(...Array.from({ length: g.players }, (_, i) => {
    const acting = g.status === "active" && toAct.includes(i);
    const mine = st.seats.some((x) => x.seat === i);
    const state = acting ? (bots[String(i)] ? ui("thinking") : mine ? ui("your_turn") : ui("deciding")) : "";
    return h("article", { class: `player-card${acting ? " acting" : ""}${i === st.seat ? " me" : ""}`, "data-seat": i, "aria-label": nameOf(i) },
      h("div", { class: "pc-head" }, seatBadge(i), h("span", { class: "pc-name" }, nameOf(i)),
        mine ? h("span", { class: "pc-tag" }, ui("you")) : null),
      h("div", { class: "pc-score" }, h("span", { class: "pc-label" }, ui("score")), " ", h("b", {}, figure(p.score(view, i)))),
      h("dl", { class: "pc-stats" }, p.seatStats(view, i, ctxFor(view)).flatMap(([k, v]) => [h("dt", {}, k), h("dd", {}, figure(v))])),
      h("div", { class: "pc-turn", "aria-live": "polite" }, acting ? h("span", { class: bots[String(i)] ? "thinking" : "" }, `▶ ${state}`) : ""));
  }));
}

function drawBoard(view, interactive = true) {
  const game = gameKey();
  const board = BOARDS[game];
  const refs = new Set();
  if (interactive) st.actions.forEach((a) => refsOf(a).forEach((r) => refs.add(r)));
  const pick = { refs, onPick: (ref) => pickRef(ref), label: (ref) => pres()?.refLabel?.(ref, ctxFor(view)) || ref };
  if (!board || !st.boardData) {
    $("board").replaceChildren(h("p", { class: "muted" }, ui("loading_board")));
    $("board-extra").replaceChildren();
    return;
  }
  const [svg, ...extra] = board.draw(view, st.boardData, pick, ctxFor(view));
  for (const ref of st.filterRefs || []) svg.querySelectorAll(`[data-ref="${CSS.escape(ref)}"]`).forEach((el) => el.classList.add("selected"));
  for (const ref of st.lastRefs) svg.querySelectorAll(`[data-ref="${CSS.escape(ref)}"]`).forEach((el) => el.classList.add("last-move"));
  svg.style.width = `${100 * st.zoom}%`;
  $("board").replaceChildren(svg);
  $("board-extra").replaceChildren(...extra);
}

/** Highlight the board elements the latest events named, in place (the board is not redrawn). */
function markLastMove() {
  const svg = $("board").querySelector("svg");
  if (!svg) return;
  svg.querySelectorAll(".last-move").forEach((el) => el.classList.remove("last-move"));
  for (const ref of st.lastRefs) svg.querySelectorAll(`[data-ref="${CSS.escape(ref)}"]`).forEach((el) => el.classList.add("last-move"));
}

/** A board element was clicked: play the only action naming it, or narrow the picker to those actions. */
function pickRef(ref) {
  const matching = st.actions.filter((a) => refsOf(a).has(ref));
  if (matching.length === 1) { play(matching[0]); return; }
  narrowTo([ref]);
}

/** Narrow the picker to the actions naming any of `refs` and move focus (and the page) to its first choice. */
function narrowTo(refs) {
  st.filterRefs = refs;
  render();
  $("action-list").querySelector("button, select")?.focus();
}

/** A touch tap on the board: the one target near the finger, or the actions of every target near it (taps.js). */
function tapBoard(point) {
  const svg = $("board").querySelector("svg");
  const choice = svg ? resolveTap(nearTargets(svg, point.x, point.y)) : null;
  if (!choice) return false;
  if (choice.pick) pickRef(choice.pick);
  else narrowTo(choice.near);
  return true;
}

function renderActions() {
  const g = st.game;
  const ctx = ctxFor(g.view);
  const filter = $("actions-filter");
  filter.hidden = !st.filterRefs;
  const what = (st.filterRefs || []).map((ref) => pres()?.refLabel?.(ref, ctx) || ref).join("; ");
  filter.replaceChildren(...(st.filterRefs ? [ui(st.filterRefs.length > 1 ? "showing_actions_near" : "showing_actions_for", { what }), " ",
    h("button", { type: "button", class: "small", onclick: () => { st.filterRefs = null; render(); } }, ui("show_all"))] : []));
  $("actions-h").textContent = st.seat === null ? ui("spectating") : ui("your_actions", { name: nameOf(st.seat) });
  const note = pres()?.actionNote?.(g.view, st.seat, ctx);
  $("phase").textContent = [section(g.game, "phase")[g.view.phase] || "", note || ""].filter(Boolean).join(" ");
  if (g.status !== "active") {
    $("action-list").replaceChildren(h("p", { class: "muted" }, g.status === "aborted" ? ui("aborted_note") : ui("game_over_note")));
    return;
  }
  if (!st.actions.length) {
    $("action-list").replaceChildren(h("p", { class: "muted" }, g.to_act.length ? ui("waiting_for", { names: g.to_act.map(nameOf).join(", ") }) : ui("nothing_to_do")));
    return;
  }
  const p = pres();
  const rules = Object.fromEntries(section(g.game, "rules"));
  const groups = section(g.game, "group");
  const describe = {
    label: (a) => say(g.game, "action", a, p, ctx),
    hint: (a) => p?.hint?.(a, ctx) || null,
    tooltip: (a) => { const id = p?.RULE_OF?.[a.type]; return id && rules[id] ? `${id}: ${rules[id]}` : null; },
    group: (type) => groups[type] || type.replace(/_/g, " "),
  };
  renderPicker($("action-list"), st.actions, play, st.filterRefs, describe);
}

async function play(action) {
  if (st.busy) return;
  st.busy = true;
  st.refocus = true;
  document.body.classList.add("busy");
  let version = 0;
  const key = `${st.seat}-${st.game.version}-${Math.random().toString(36).slice(2)}`; // one key for every retry
  try {
    const done = await api(`/v1/games/${encodeURIComponent(gameId)}/actions`, {
      method: "POST", token: token(), body: { action, expected_version: st.game.version },
      headers: { "Idempotency-Key": key },
    });
    showError(null);
    $("notice").textContent = "";
    st.filterRefs = null;
    version = done.version;
    autoSwitch(done.status, done.to_act);
  } catch (err) {
    if (err instanceof ApiError && err.status === 409) $("notice").textContent = ui("moved_on");
    else showError(err);
  }
  try {
    await refresh(version); // stay busy until the page shows the new position: no click on a stale button
  } finally {
    st.busy = false;
    document.body.classList.remove("busy");
  }
}

function kvList(pairs) {
  return h("dl", { class: "kv" }, pairs.flatMap(([k, v]) => [h("dt", {}, k), h("dd", {}, figure(v))]));
}

function renderMe(view) {
  const me = $("me");
  if (st.seat === null) { me.replaceChildren(h("p", { class: "muted" }, ui("no_seat"))); return; }
  me.replaceChildren(h("p", {}, seatBadge(st.seat), " ", h("b", {}, nameOf(st.seat))), ...(pres()?.myPanel(view, st.seat, ctxFor(view)) || []));
}

function renderTable(view) {
  const p = pres();
  $("table-info").replaceChildren(p ? kvList(p.tableInfo(view, ctxFor(view))) : "");
  const rules = section(gameKey(), "rules");
  if (!$("rules-body").childElementCount && Array.isArray(rules)) {
    $("rules-body").replaceChildren(h("dl", { class: "rules-list" }, rules.flatMap(([id, text]) => [h("dt", {}, id), h("dd", {}, text)])),
      h("p", { class: "muted" }, ui("rule_numbers_note")));
  }
}

const NOTIFY = "skyboard.notify";

/** When my turn starts (not on every redraw), and the player asked for it: a short tone and, while the page is
 * hidden, a browser notification. Optional and remembered (localStorage); the title and favicon signal it anyway. */
function announceTurn(myTurn, g) {
  const started = myTurn && !st.wasMyTurn;
  st.wasMyTurn = myTurn;
  if (!started || !$("notify-turn").checked) return;
  try {
    const audio = new (window.AudioContext || window.webkitAudioContext)();
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

async function setNotify(on) {
  localStorage.setItem(NOTIFY, on ? "1" : "0");
  if (on && "Notification" in window && Notification.permission === "default") {
    try { await Notification.requestPermission(); } catch { /* the tone still plays */ }
  }
}

/** Resign and abort, for a seat I hold in a running game (abort only while the rules allow it: the service says). */
function renderTableControls(g) {
  const mine = token() !== null && g.status === "active";
  const left = (g.seats || []).find((s) => s.seat === st.seat)?.status !== "active";
  $("resign").hidden = !mine || left;
  $("abort").hidden = !mine || left;
  $("resign").textContent = ui("resign");
  $("abort").textContent = ui("abort");
}

/** POST resign or abort for the current seat after the player confirms (both are irreversible). */
async function tableAction(kind) {
  const question = kind === "resign" ? ui("confirm_resign", { name: nameOf(st.seat) }) : ui("confirm_abort");
  if (!window.confirm(question)) return;
  try {
    await api(`/v1/games/${encodeURIComponent(gameId)}/${kind}`, { method: "POST", token: token() });
    $("notice").textContent = kind === "resign" ? ui("resigned_note", { name: nameOf(st.seat) }) : ui("aborted_note");
    if (kind === "resign") {  // the seat's token is revoked: forget it here and watch as a spectator
      saveGame({ game_id: gameId, seats: [{ seat: st.seat, token: null, bot: null }] });
      st.seats = mySeats(gameId);
      st.seat = st.seats.length ? st.seats[0].seat : null;
      openStream();
    }
  } catch (err) {
    if (err instanceof ApiError && err.code === "abort_not_allowed") $("notice").textContent = ui("abort_not_allowed");
    else showError(err);
  }
  await refresh();
}

const ordinal = (n) => (n <= 3 ? ui(`place_${n}`) : ui("place_n", { n }));

/**
 * Every event of the finished game, for the end screen's score categories (a presentation's final() reads them):
 * the events stream of the whole game, from its creation, as a spectator (scoring is public), which ends with the
 * game's end. st.finalEvents: undefined (not asked), "pending", an array, or null (unavailable: the stream
 * failed, or an archived game's, which keeps no events). The end screen is drawn again once they are in.
 */
async function loadFinalEvents() {
  if (st.finalEvents !== undefined) return;
  st.finalEvents = "pending";
  const list = [];
  let failed = false;
  try {
    await readEvents(`/v1/games/${encodeURIComponent(gameId)}/events`, {
      onEvent: ({ event, data }) => {
        if (event === "message") list.push(data);
        else if (event === "error") failed = true;
      },
    });
  } catch {
    failed = true;
  }
  st.finalEvents = failed ? null : list;
  if (st.game?.status === "finished" && !st.replay) renderFinal(st.game);
}

/**
 * The end screen: players ranked by placement (winners first; ties share a place) with each score category. A seat
 * whose player resigned or was abandoned ranks below every other, whatever it scored, and is never a winner: the
 * service's `winners` already say so (services/standings.py), and its `seats` say who left.
 * Every game's final(view, ctx, events) gives {categories: [{key, label}], values(seat): [{value, detail, note}],
 * total(seat), tiebreak: {key, label, value(seat), text(seat)} | null}; a value is null while unknown, a detail is
 * the cell's sub-line, a note its tooltip (the detail when none). The categories add up to the score: where they
 * do not (a category unknown, or a difference), an "Other" column shows the difference, never hidden.
 */
function renderFinal(g) {
  const done = g.status === "finished";
  $("final").hidden = !done;
  $("replay-open").hidden = !done;
  if (!done) return;
  loadFinalEvents();
  const p = pres();
  const pending = st.finalEvents === "pending";
  const f = p.final(g.view, ctxFor(g.view), Array.isArray(st.finalEvents) ? st.finalEvents : null);
  const seats = Array.from({ length: g.players }, (_, i) => i);
  const tiebreak = (s) => (f.tiebreak ? f.tiebreak.value(s) : 0);
  const left = (s) => (g.seats || []).find((x) => x.seat === s)?.status || "active";
  const keyOf = (s) => [left(s) === "active" ? 1 : 0, g.winners.includes(s) ? 1 : 0, g.scores[s], tiebreak(s)];
  const ahead = (a, b) => {
    const ka = keyOf(a); const kb = keyOf(b);
    if (ka[0] === 0 && kb[0] === 0) return false; // the seats that left share the last place
    for (let i = 0; i < ka.length; i++) if (ka[i] !== kb[i]) return ka[i] > kb[i];
    return false;
  };
  const place = (s) => 1 + seats.filter((o) => ahead(o, s)).length;
  const ranked = [...seats].sort((a, b) => place(a) - place(b) || a - b);
  const parts = Object.fromEntries(seats.map((s) => [s, f.values(s)]));
  const other = (s) => g.scores[s] - parts[s].reduce((n, x) => n + (x?.value ?? 0), 0);
  const showOther = !pending && seats.some((s) => other(s) !== 0);
  const cell = (key, x) => {
    const known = x && x.value !== null && x.value !== undefined;
    return h("td", { "data-key": key, "data-value": known ? x.value : null, title: x?.note || x?.detail || null },
      known ? figure(x.value) : pending ? "…" : "—", x?.detail ? [h("br"), h("small", { class: "muted" }, x.detail)] : null);
  };
  $("final-scores").replaceChildren(h("table", { class: "grid-table final-table", "data-breakdown": pending ? "pending" : st.finalEvents ? "ready" : "unavailable" },
    h("caption", { class: "sr-only" }, ui("final_caption")),
    h("thead", {}, h("tr", {}, h("th", { scope: "col" }, ui("final_place")), h("th", { scope: "col" }, ui("final_player")),
      f.categories.map((c) => h("th", { scope: "col", "data-key": c.key }, c.label)),
      showOther ? h("th", { scope: "col", "data-key": "other" }, ui("final_other")) : null,
      f.tiebreak ? h("th", { scope: "col", "data-key": f.tiebreak.key }, f.tiebreak.label) : null,
      h("th", { scope: "col", "data-key": "total" }, ui("total")))),
    h("tbody", {}, ranked.map((s) => h("tr", { "data-seat": s, "data-score": g.scores[s], "data-winner": g.winners.includes(s) ? "true" : null,
      "data-left": left(s) === "active" ? null : left(s), class: g.winners.includes(s) ? "winner" : "" },
      h("td", {}, ordinal(place(s))), h("th", { scope: "row" }, seatBadge(s), " ", nameOf(s),
        g.winners.includes(s) ? h("span", { class: "win-tag" }, ui("winner_tag")) : "",
        left(s) === "active" ? "" : h("span", { class: "left-tag muted" }, left(s) === "resigned" ? ui("resigned_tag") : ui("abandoned_tag"))),
      f.categories.map((c, i) => cell(c.key, parts[s][i])),
      showOther ? cell("other", { value: other(s) }) : null,
      f.tiebreak ? h("td", { "data-key": f.tiebreak.key, "data-value": f.tiebreak.value(s) }, f.tiebreak.text(s)) : null,
      h("td", { "data-key": "total", "data-value": g.scores[s] }, h("b", {}, figure(g.scores[s]))))))));
  $("winners").textContent = g.winners.length ? ui(g.winners.length > 1 ? "winners" : "winner", { names: g.winners.map(nameOf).join(", ") })
    : ui("no_winner");
  const extra = p.finalExtra?.(g.view, ctxFor(g.view));
  $("final-extra").replaceChildren(...(extra ? [extra] : []));
  $("chance").textContent = $("winners").textContent;
}

function eventLine(ev) { return say(gameKey(), "event", ev, pres(), ctxFor(st.game?.view || st.replay?.view)); }

function logEvent(ev, version) {
  const p = pres();
  const chance = p?.isChance?.(ev);
  if (version !== st.lastVersion) {
    st.lastVersion = version;
    st.lastRefs = new Set();
    $("log").querySelectorAll("li.latest").forEach((li) => li.classList.remove("latest"));
  }
  (p?.refsOfEvent?.(ev) || []).forEach((r) => st.lastRefs.add(r));
  const text = eventLine(ev);
  const item = h("li", { class: `latest${chance ? " chance-ev" : ""}` }, text, ev.visible_to ? [" ", h("span", { class: "muted" }, ui("only_you_see"))] : "");
  const log = $("log");
  log.prepend(item);
  while (log.children.length > 5000) log.lastChild.remove();
  if (chance) $("chance").textContent = text;
  if ("seat" in ev || ev.type.endsWith("placed") || ev.type === "market_won") $("last-move").textContent = ui("last_move", { text });
}

/** Follow the game's SSE stream as my current seat; every `state` event triggers a refresh. Reconnects with
 * back-off from the last version seen whenever the stream drops or fails. */
function openStream() {
  st.stream?.abort();
  const ctrl = new AbortController();
  st.stream = ctrl;
  let ended = false;
  const path = `/v1/games/${encodeURIComponent(gameId)}/events?after=${st.lastEventVersion}`;
  readEvents(path, {
    token: token(), signal: ctrl.signal,
    onEvent: ({ event, id, data }) => {
      st.streamFailures = 0;
      if (document.body.classList.contains("offline")) setOffline(false);
      if ($("notice").textContent === ui("reconnecting")) $("notice").textContent = "";
      const version = Number(id);
      if (event === "message") {
        logEvent(data, version);
      } else if (event === "state" || event === "end") {
        if (event === "end") ended = true;
        st.lastEventVersion = Math.max(st.lastEventVersion, version);
        if (!st.game || version > st.game.version || event === "end") refresh(version);
        else markLastMove();
      } else if (event === "error") {
        showError(new Error(data?.error?.message || ui("stream_error")));
      }
    },
  }).then(() => resume(), () => resume());
  function resume() {
    if (st.stream !== ctrl || ctrl.signal.aborted || ended || (st.game && st.game.status !== "active")) return;
    const wait = backoff(Math.min(st.streamFailures++, 5));
    if (st.streamFailures > 1 || !navigator.onLine) $("notice").textContent = ui("reconnecting");
    if (!navigator.onLine) setOffline(true);
    setTimeout(() => {
      if (st.stream === ctrl && !ctrl.signal.aborted) { openStream(); refresh(); }
    }, wait);
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
  const ctx = ctxFor(r.view);
  $("replay-info").textContent = r.step === 0 ? ui("replay_setup", { steps: r.steps })
    : ui("replay_step", { step: r.step, steps: r.steps, name: nameOf(r.seat),
      action: say(r.game, "action", r.action, pres(), { ...ctx, me: r.seat }) });
  st.lastRefs = new Set(r.events.flatMap((ev) => pres()?.refsOfEvent?.(ev) || []));
  drawBoard(r.view, false);
  $("log").replaceChildren(...r.events.map((ev) => h("li", { class: pres()?.isChance?.(ev) ? "chance-ev" : "" }, eventLine(ev))));
  const chance = r.events.filter((ev) => pres()?.isChance?.(ev));
  $("chance").textContent = chance.length ? chance.map(eventLine).join(" · ") : "—";
  $("turn").textContent = r.to_act.length ? ui("to_act", { names: r.to_act.map(nameOf).join(", ") }) : ui("game_over");
  renderPlayers({ ...st.game, status: r.to_act.length ? "active" : "finished" }, r.view, r.to_act);
  $("me").replaceChildren(h("p", { class: "muted" }, ui("replay_public")));
  $("table-info").replaceChildren(kvList(pres().tableInfo(r.view, ctx)));
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

/** With a turn clock: the time left of each seat that must act (from `deadlines`); without: time on this decision. */
function tick() {
  const g = st.game;
  const clock = $("clock");
  const deadlines = g?.turn_seconds ? g.deadlines || {} : null;
  $("clock-label").textContent = ui(deadlines ? "clock_time_left" : "clock_on_decision");
  clock.setAttribute("aria-label", ui(deadlines ? "clock_time_left_aria" : "clock_on_decision_aria"));
  if (!g || g.status !== "active") { clock.textContent = "—"; return; }
  if (!deadlines) { clock.textContent = mmss(Math.floor((Date.now() - st.turnSince) / 1000)); return; }
  const running = g.to_act.filter((s) => deadlines[s] !== undefined);
  const left = (s) => mmss(Math.max(0, Math.ceil((deadlines[s] - Date.now()) / 1000)));
  clock.textContent = running.length === 1 ? left(running[0])
    : running.map((s) => `${nameOf(s)} ${left(s)}`).join(" · ") || "—";
  clock.classList.toggle("low", running.some((s) => deadlines[s] - Date.now() < 10_000));
}

/** Zoom the board (1 = fit, up to 4), keeping the board point under `anchor` (client coordinates; default: the
 * frame's centre) where it is. */
function setZoom(z, anchor = null) {
  const frame = $("board");
  const old = st.zoom;
  st.zoom = Math.max(1, Math.min(4, z));
  const svg = frame.querySelector("svg");
  if (!svg) return;
  const box = frame.getBoundingClientRect();
  const ax = (anchor ? anchor.x : box.left + box.width / 2) - box.left;
  const ay = (anchor ? anchor.y : box.top + box.height / 2) - box.top;
  const px = (frame.scrollLeft + ax) / old; // the anchor's board point, in "fit" pixels
  const py = (frame.scrollTop + ay) / old;
  svg.style.width = `${100 * st.zoom}%`;
  frame.classList.toggle("zoomed", st.zoom > 1);
  frame.scrollLeft = px * st.zoom - ax;
  frame.scrollTop = py * st.zoom - ay;
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
  window.addEventListener("online", () => { openStream(); refresh(); });
  // seat tokens come only from this browser's storage, never from the address (addresses get logged)
  st.seats = mySeats(gameId);
  const sel = $("seat-select");
  st.seat = st.seats.length ? st.seats[0].seat : null;
  sel.addEventListener("change", () => {
    $("auto-seat").checked = false;
    st.seat = sel.value === "" ? null : Number(sel.value);
    st.filterRefs = null;
    openStream();
    refresh();
  });
  $("replay-open").addEventListener("click", openReplay);
  $("notify-turn").checked = localStorage.getItem(NOTIFY) === "1";
  $("notify-turn").addEventListener("change", (ev) => setNotify(ev.target.checked));
  $("resign").addEventListener("click", () => tableAction("resign"));
  $("abort").addEventListener("click", () => tableAction("abort"));
  $("zoom-in").addEventListener("click", () => setZoom(st.zoom * 1.5));
  $("zoom-out").addEventListener("click", () => setZoom(st.zoom / 1.5));
  $("zoom-reset").addEventListener("click", () => setZoom(1));
  panZoom($("board"), () => st.zoom, setZoom, tapBoard);
  setInterval(tick, 1000);
  await refresh();
  sel.replaceChildren(...st.seats.map((x) => h("option", { value: x.seat }, nameOf(x.seat))), h("option", { value: "" }, ui("spectator")));
  sel.value = st.seat === null ? "" : String(st.seat);
  $("seat-switch").hidden = st.seats.length < 2;
  if (params.get("replay") && st.game?.status === "finished") openReplay();
  else openStream();
}

main();
