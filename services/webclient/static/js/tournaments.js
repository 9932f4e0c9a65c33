// @ts-check
// The tournaments page: without ?id= the events (open, running, finished) and the organiser's creation form; with
// ?id=<tournament_id> one event: its settings, entering and withdrawing as this browser's account, my table of the
// round (the game link once the director paired it), the standings live from the event's feed (GET
// /v1/tournaments/{id}/events: `pairing`, `standings`, `end`) and the rounds; the final standings once it ends.
import { ApiError, api, readEvents } from "./api.js";
import { asPlayer } from "./account.js";
import { choiceName, optionName, titleOf } from "./catalog_words.js";
import { h, labelColumns } from "./dom.js";
import { duration, errorText, language, loadCatalogue, localize, number, ui } from "./i18n.js";
import { showFieldError } from "./field_error.js";
import { choiceLabel, choicesFor } from "./seat_options.js";
import { findGame, player, saveGame } from "./store.js";

/** An element of the page by id. @param {string} id */
const $ = (id) => /** @type {HTMLElement} */ (document.getElementById(id));
/** An <input> of the page by id. @param {string} id */
const $input = (id) => /** @type {HTMLInputElement} */ (document.getElementById(id));
/** A <select> of the page by id. @param {string} id */
const $select = (id) => /** @type {HTMLSelectElement} */ (document.getElementById(id));
/** A <button> of the page by id. @param {string} id */
const $button = (id) => /** @type {HTMLButtonElement} */ (document.getElementById(id));

/** @typedef {import("./types.js").Schemas} Schemas */
/** @typedef {Schemas["TournamentOut"]} Tournament */
/** @typedef {Schemas["TournamentStandings"]} Standings */
/** @typedef {Schemas["StandingOut"]} Standing */
/** @typedef {Schemas["RoundOut"]} Round */
/** @typedef {Schemas["CatalogGame"]} CatalogGame */
/** @typedef {{choices?: unknown[], default?: unknown}} GameOption */

const STATUSES = /** @type {const} */ (["open", "running", "finished"]);
const OPEN = STATUSES[0];
const BOTS = "bots";
const ARENA = "arena";
const JOIN = "join";
/** While an event runs, the record is read again this often (ms): a table's result between two rounds reaches no
 * feed event (the feed says pairings, standings and the end). */
const RECORD_POLL_MS = 15_000;

/** @type {Schemas["Catalog"]} */
let catalog = { games: [], bot_levels: [] };

/** @param {string} text @param {boolean} [isError] */
function status(text, isError = false) {
  const el = $("tour-status");
  el.textContent = text;
  el.classList.toggle("error", isError);
}

/** A moment as the page's language writes a date and a time. @param {number} ms */
const when = (ms) => new Intl.DateTimeFormat(language(), { dateStyle: "medium", timeStyle: "short" }).format(new Date(ms));
/** Match points as the language writes them ("2.5", "2,5"). @param {number} x */
const points = (x) => number(x, Number.isInteger(x) ? 0 : 1);
/** A place at a table, "1st", "2nd"... in the language. @param {number} n */
const ordinal = (n) => (n <= 3 ? ui(`place_${n}`) : ui("place_n", { n }));
/** A game's title in the page's language. @param {string} game */
const gameTitle = (game) => titleOf(game, catalog.games.find((g) => g.name === game)?.title || game);

/** Player names by account id, asked once per page (GET /v1/players/{id}). @type {Map<string, Promise<string>>} */
const names = new Map();
/** @param {string | null} id */
function nameOf(id) {
  if (id === null) return Promise.resolve(ui("tour_bot_seat"));
  let name = names.get(id);
  if (!name) {
    name = api(`/v1/players/${encodeURIComponent(id)}`, { tries: 2 }).then((p) => String(p.name), () => ui("tour_unknown_player"));
    names.set(id, name);
  }
  return name;
}

/** An event's time control in words. @param {Tournament["time_control"]} tc */
function clockText(tc) {
  if (!tc) return ui("tour_clock_none");
  if (tc.kind === "correspondence") return ui("tour_clock_days", { n: tc.days_per_decision });
  return tc.reserve_seconds ? ui("tour_clock_seconds_reserve", { s: tc.seconds_per_decision, reserve: tc.reserve_seconds })
    : ui("tour_clock_seconds", { s: tc.seconds_per_decision });
}

/** Whether an event is an arena (a time window, its tables all in one round 0). @param {Tournament} t */
const isArena = (t) => t.kind === ARENA;

/** Where an event stands: open (and when it starts), round r of n, or finished; an arena: open (its start),
 * running until its end, or ended. @param {Tournament} t */
function stateText(t) {
  if (isArena(t)) {
    if (t.status === "open") return ui("tour_arena_state_open", { date: when(t.starts_at) });
    if (t.status === "running") return ui("tour_arena_state_running", { date: when(t.ends_at ?? t.starts_at) });
    return ui("tour_arena_state_finished");
  }
  if (t.status === "open") return ui("tour_state_open", { date: when(t.starts_at) });
  if (t.status === "running") return ui("tour_state_running", { round: t.round, rounds: t.rounds });
  return ui("tour_state_finished");
}

// ------------------------------------------------------------------------------------------------ the list

async function renderLists() {
  const lists = await Promise.all(STATUSES.map((s) => api(`/v1/tournaments?status=${s}&limit=50`)));
  $("tour-lists").replaceChildren(...STATUSES.map((s, i) => {
    /** @type {Tournament[]} */
    const events = lists[i].tournaments;
    const id = `tour-${s}-h`;
    return h("div", { class: "tour-group", "data-status": s }, h("h3", { id }, ui(`tour_group_${s}`)),
      // a table wider than a phone scrolls in its box, which the keyboard reaches too
      events.length ? h("div", { class: "table-wrap", role: "region", "aria-labelledby": id, tabindex: 0 }, eventTable(events, s === OPEN, id))
        : h("p", { class: "muted" }, ui(`tour_none_${s}`)));
  }));
}

/** An event's format in words: Swiss with its rounds, or an arena with its window's length. @param {Tournament} t */
function formatText(t) {
  return isArena(t) ? ui("tour_format_arena", { length: duration(((t.ends_at ?? t.starts_at) - t.starts_at) / 1000) })
    : ui("tour_format_swiss", { n: t.rounds });
}

/** A table of events: each one's name (its page's link), title, entrants, table size, format, and its start (events
 * open for entries) or where it stands. @param {Tournament[]} events @param {boolean} open @param {string} labelledBy */
function eventTable(events, open, labelledBy) {
  const heads = [ui("tour_event"), ui("lobby_game"), ui("tour_entrants"), ui("tour_table_size"), ui("tour_kind"),
    open ? ui("tour_start") : ui("tour_state")];
  return labelColumns(h("table", { class: "grid-table tour-table", "aria-labelledby": labelledBy },
    h("thead", {}, h("tr", {}, heads.map((w) => h("th", { scope: "col" }, w)))),
    h("tbody", {}, events.map((t) => h("tr", { "data-tournament-id": t.tournament_id },
      h("th", { scope: "row" }, h("a", { href: `/tournaments.html?id=${encodeURIComponent(t.tournament_id)}` }, t.name)),
      h("td", {}, gameTitle(t.game)),
      h("td", { "data-key": "entrants" }, ui("tour_entrants_of", { n: t.entrants, max: t.max_players })),
      h("td", {}, number(t.players)),
      h("td", { "data-key": "format" }, formatText(t)),
      h("td", {}, open ? when(t.starts_at) : stateText(t)))))));
}

// ------------------------------------------------------------------------------------------------ the creation form

/** A date-time input's value for `ms` in the browser's own time zone, to the minute ("2026-12-06T19:30").
 * @param {number} ms */
function localInput(ms) {
  const d = new Date(ms - new Date(ms).getTimezoneOffset() * 60_000);
  return d.toISOString().slice(0, 16);
}

function renderOptions() {
  const g = catalog.games.find((x) => x.name === $select("tour-game").value);
  if (!g) return;
  const players = $input("tour-players");
  players.min = String(Math.max(2, g.min_players));
  players.max = String(Math.min(5, g.max_players));
  players.value = String(Math.min(Number(players.max), Math.max(Number(players.min), Number(players.value) || Number(players.min))));
  const n = Number(players.value);
  const box = $("tour-options");
  const opts = /** @type {[string, GameOption][]} */ (Object.entries(g.options));
  box.replaceChildren(box.querySelector("legend") || "", ...opts.map(([k, o]) =>
    h("label", {}, optionName(k), " ", h("select", { name: `option-${k}`, "data-option": k },
      choicesFor(k, o.choices || [], n).map((c) => h("option", { value: JSON.stringify(c), selected: c === o.default },
        choiceLabel(k, c, choiceName)))))));
  if (!opts.length) box.append(h("span", { class: "muted" }, ui("none")));
}

/** Swiss asks rounds and byes; an arena its window's length, the streak and the bots' wait (the fields hidden are
 * disabled, so the browser neither checks nor sends them). */
function renderKindFields() {
  const arena = $select("tour-kind").value === ARENA;
  for (const el of /** @type {NodeListOf<HTMLElement>} */ (document.querySelectorAll(".arena-field"))) el.hidden = !arena;
  for (const id of ["tour-length", "tour-streak-after", "tour-streak-factor", "tour-bots-after"]) $input(id).disabled = !arena;
  $("tour-rounds-field").hidden = arena;
  $input("tour-rounds").disabled = arena;
  $("tour-byes-field").hidden = arena;
  $select("tour-byes").disabled = arena;
  $("tour-start-label").textContent = ui(arena ? "tour_arena_starts" : "tour_start");
}

function renderClockFields() {
  const kind = $select("tour-clock").value;
  $("tour-seconds-field").hidden = kind !== "realtime";
  $("tour-reserve-field").hidden = kind !== "realtime";
  $("tour-days-field").hidden = kind !== "correspondence";
}

/** The form as a POST /v1/tournaments body (Schemas["NewTournament"]). */
function newTournament() {
  /** @type {Record<string, unknown>} */
  const options = {};
  for (const sel of $("tour-options").querySelectorAll("select")) options[sel.dataset.option || ""] = JSON.parse(sel.value);
  const kind = $select("tour-clock").value;
  const time_control = kind === "realtime"
    ? { kind, seconds_per_decision: Number($input("tour-seconds").value), reserve_seconds: Number($input("tour-reserve").value || 0) }
    : kind === "correspondence" ? { kind, days_per_decision: Number($input("tour-days").value) } : null;
  const start = new Date($input("tour-start").value).getTime();
  // a start a moment past (the minute the field shows) is "now"
  const starts_at = Number.isFinite(start) ? Math.max(start, Date.now() - 30_000) : Date.now();
  const common = {
    name: $input("tour-name").value.trim(), game: $select("tour-game").value, players: Number($input("tour-players").value),
    max_players: Number($input("tour-max").value), options, time_control,
    rated: $input("tour-rated").checked, bots_allowed: $input("tour-bots").checked, starts_at,
  };
  if ($select("tour-kind").value !== ARENA) {
    return { ...common, kind: /** @type {const} */ ("swiss"), rounds: Number($input("tour-rounds").value),
      byes: /** @type {"bots" | "score"} */ ($select("tour-byes").value) };
  }
  const botsAfter = $input("tour-bots-after").value.trim();
  return {
    ...common, kind: /** @type {const} */ ("arena"), ends_at: starts_at + Number($input("tour-length").value) * 60_000,
    streak_after: Number($input("tour-streak-after").value), streak_factor: Number($input("tour-streak-factor").value),
    bots_after_s: botsAfter === "" ? null : Number(botsAfter),
  };
}

/** @param {SubmitEvent} ev */
async function createTournament(ev) {
  ev.preventDefault();
  $button("tour-submit").disabled = true;
  showFieldError($("tour-create-error"), null);
  try {
    const body = newTournament();
    const created = await asPlayer(null, (me) => api("/v1/tournaments", { method: "POST", token: me.api_key, body }));
    location.href = `/tournaments.html?id=${encodeURIComponent(created.tournament_id)}`;
  } catch (err) {
    showFieldError($("tour-create-error"), err, (message) => ui("tour_create_failed", { message }));
  } finally {
    $button("tour-submit").disabled = false;
  }
}

function setupCreateForm() {
  $select("tour-game").replaceChildren(...catalog.games.map((g) => h("option", { value: g.name }, g.title)));
  $input("tour-players").value = String(Math.max(2, catalog.games[0]?.min_players ?? 2));
  $input("tour-start").value = localInput(Date.now() + 10 * 60_000);
  renderOptions();
  renderClockFields();
  renderKindFields();
  $select("tour-kind").addEventListener("change", renderKindFields);
  $select("tour-game").addEventListener("change", renderOptions);
  $input("tour-players").addEventListener("change", renderOptions);
  $select("tour-clock").addEventListener("change", renderClockFields);
  $("tour-form").addEventListener("submit", createTournament);
}

// ------------------------------------------------------------------------------------------------ one event

/** @type {{event: Tournament | null, record: Standings | null, live: Standing[] | null, ended: boolean}} */
const shown = { event: null, record: null, live: null, ended: false };

/** @param {string} id */
async function loadEvent(id) {
  const [event, record] = await Promise.all([api(`/v1/tournaments/${encodeURIComponent(id)}`),
    api(`/v1/tournaments/${encodeURIComponent(id)}/standings`)]);
  shown.event = event;
  shown.record = record;
  shown.live = null; // the record read now is at least as new as what the feed said
  await renderEvent();
}

async function renderEvent() {
  const t = shown.event;
  const record = shown.record;
  if (!t || !record) return;
  document.title = ui("tour_event_title", { name: t.name });
  $("tour-event-h").textContent = t.name;
  const arena = isArena(t);
  /** @type {[string, string, string][]} */
  const facts = [
    ["game", ui("lobby_game"), gameTitle(t.game)],
    ["kind", ui("tour_kind"), ui(arena ? "tour_kind_arena" : "tour_kind_swiss")],
    ["state", ui("tour_state"), stateText(t)],
    ["start", ui(arena ? "tour_arena_starts" : "tour_start"), when(t.starts_at)],
    ...(/** @type {[string, string, string][]} */ (arena ? [["ends", ui("tour_arena_ends"), when(t.ends_at ?? t.starts_at)]] : [])),
    ["entrants", ui("tour_entrants"), ui("tour_entrants_of", { n: t.entrants, max: t.max_players })],
    ["table", ui("tour_table_size"), number(t.players)],
    ...(/** @type {[string, string, string][]} */ (arena ? [
      ["streak", ui("tour_streak"), (t.streak_factor ?? 1) > 1 ? ui("tour_streak_rule", { n: t.streak_after, factor: t.streak_factor }) : ui("none")],
      ["arena_bots", ui("tour_arena_bots"), t.bots_after_s === null || t.bots_after_s === undefined ? ui("tour_arena_bots_never")
        : ui("tour_arena_bots_after", { wait: duration(t.bots_after_s) })],
    ] : [["rounds", ui("tour_rounds"), number(t.rounds)]])),
    ["clock", ui("tour_clock"), clockText(t.time_control)],
    ["rated", ui("tour_rated"), ui(t.rated ? "yes" : "no")],
    ["bots", ui("tour_bots_allowed"), ui(t.bots_allowed ? "yes" : "no")],
  ];
  if (!arena) facts.push(["byes", ui("tour_byes"), t.byes === BOTS ? ui("tour_byes_bots") : ui("tour_byes_score")]);
  const options = Object.entries(t.options || {});
  if (options.length) {
    facts.push(["options", ui("lobby_options"), options.map(([k, v]) => `${optionName(k)}: ${choiceLabel(k, v, choiceName)}`).join("; ")]);
  }
  $("tour-facts").replaceChildren(...facts.flatMap(([key, term, value]) => [h("dt", {}, term), h("dd", { "data-key": key }, value)]));
  renderEntry();
  $("tour-rounds-h").textContent = ui(arena ? "tour_arena_tables" : "tour_rounds");
  const rows = shown.live || record.standings;
  await Promise.all([renderMine(), renderStandings(rows), renderRounds(record.rounds)]);
}

/** Me: this browser's account, as the event's record knows it (entered, withdrawn, or not at all). */
function myEntry() {
  const me = player();
  if (!me?.player_id || !shown.record) return null;
  return shown.record.standings.find((r) => r.player_id === me.player_id) || null;
}

function renderEntry() {
  const t = /** @type {Tournament} */ (shown.event);
  const root = $("tour-entry");
  const mine = myEntry();
  const entered = mine !== null && !mine.withdrawn;
  const me = player();
  if (t.status === "finished") {
    root.replaceChildren(h("p", { class: "muted" }, ui("tour_over")));
    return;
  }
  // a re-render (the feed, the refresh) keeps a keyboard user's focus on the entry button it replaces
  const hadFocus = root.contains(document.activeElement);
  root.replaceChildren(
    h("p", { id: "tour-entry-note" }, entered ? ui("tour_entered", { name: me?.name || "" })
      : mine?.withdrawn ? ui("tour_withdrawn_note") : me ? ui("tour_not_entered", { name: me.name }) : ui("tour_no_account")),
    entered
      ? h("button", { type: "button", id: "tour-withdraw", "aria-describedby": "tour-withdraw-about", onclick: () => entry("withdraw") }, ui("tour_withdraw"))
      : h("button", { type: "button", id: "tour-join", onclick: () => entry("join") }, ui("tour_join")),
    entered ? h("span", { id: "tour-withdraw-about", class: "muted" }, ui("tour_withdraw_about")) : "");
  if (hadFocus) /** @type {HTMLElement | null} */ (root.querySelector("button"))?.focus();
}

/** Enter or withdraw as this browser's account (made now when the browser has none). @param {"join" | "withdraw"} what */
async function entry(what) {
  const t = /** @type {Tournament} */ (shown.event);
  const button = /** @type {HTMLButtonElement | null} */ (document.querySelector("#tour-entry button"));
  if (button) button.disabled = true;
  showFieldError($("tour-entry-error"), null);
  try {
    await asPlayer(null, (me) => api(`/v1/tournaments/${encodeURIComponent(t.tournament_id)}/${what}`, { method: "POST", token: me.api_key }));
    await loadEvent(t.tournament_id);
    status(what === JOIN ? ui("tour_joined", { name: t.name }) : ui("tour_left", { name: t.name }));
    /** @type {HTMLElement | null} */ (document.querySelector("#tour-entry button"))?.focus();
  } catch (err) {
    showFieldError($("tour-entry-error"), err, (message) => (what === JOIN ? ui("tour_join_failed", { message })
      : ui("tour_withdraw_failed", { message })));
    if (button) button.disabled = false;
  }
}

/** My table in the latest round I was paired in: the game link while it is played (my seat kept in this browser,
 * which my account's key plays, as the game page does for any seat of mine), its result once it ended, or my bye. */
async function renderMine() {
  const root = $("tour-mine");
  const me = player();
  const record = /** @type {Standings} */ (shown.record);
  const t = /** @type {Tournament} */ (shown.event);
  if (!me?.player_id || myEntry() === null) {
    root.replaceChildren(h("span", { class: "muted" }, ui("tour_mine_none")));
    return;
  }
  const arena = isArena(t);
  // an arena's own words name no round
  const rounds = [...record.rounds].sort((a, b) => b.round - a.round);
  for (const r of rounds) {
    if (r.byes.includes(me.player_id)) {
      root.replaceChildren(ui("tour_mine_bye", { round: r.round }));
      return;
    }
    // the last of mine: an arena keeps all its tables in one round 0, in the order seated
    const table = [...r.tables].reverse().find((x) => x.players.includes(me.player_id || ""));
    if (!table) continue;
    if (!table.game_id) {
      root.replaceChildren(ui(arena ? "tour_arena_mine_waiting_game" : "tour_mine_waiting_game", { round: r.round, table: table.number }));
      return;
    }
    const gameId = table.game_id;
    if (table.ended && !table.places) {
      // an arena's game aborted: it counts as none played, and its players are queued again
      const more = t.status !== "finished" && !(arena && Date.now() >= (t.ends_at ?? 0)) && !myEntry()?.withdrawn;
      root.replaceChildren(ui("tour_arena_mine_aborted", { table: table.number }), " ", more ? ui("tour_arena_mine_next") : "");
      return;
    }
    if (table.places) {
      const place = ordinal(table.places[table.players.indexOf(me.player_id)]);
      // an arena seats nobody after its end: no next table is promised then
      const more = t.status !== "finished" && !(arena && Date.now() >= (t.ends_at ?? 0)) && !myEntry()?.withdrawn;
      root.replaceChildren(ui(arena ? "tour_arena_mine_result" : "tour_mine_result", { round: r.round, table: table.number, place, players: table.players.length }),
        " ", more ? ui(arena ? "tour_arena_mine_next" : "tour_mine_next") : "", " ",
        h("a", { href: `/game.html?id=${encodeURIComponent(gameId)}`, "data-game-id": gameId }, ui("tour_open_record")));
      return;
    }
    await keepSeat(gameId, me.player_id, me.name, t);
    const others = await Promise.all(table.players.filter((p) => p !== me.player_id).map(nameOf));
    root.replaceChildren(ui(arena ? "tour_arena_mine_table" : "tour_mine_table", { round: r.round, table: table.number, names: others.join(", ") }), " ",
      h("a", { href: `/game.html?id=${encodeURIComponent(gameId)}`, id: "tour-my-game", "data-game-id": gameId, class: "button-link" },
        ui("tour_play")));
    return;
  }
  const waiting = arena && t.status === "running" && !myEntry()?.withdrawn && Date.now() < (t.ends_at ?? 0);
  root.replaceChildren(h("span", { class: "muted" }, t.status === "open" ? ui(arena ? "tour_arena_mine_before" : "tour_mine_before", { date: when(t.starts_at) })
    : waiting ? ui("tour_arena_mine_queued") : ui("tour_mine_none")));
}

/** Keep my seat of a tournament game in this browser, so the game page plays it: my account's API key acts for
 * the seat (the director seated the account; no seat token was handed out). @param {string} gameId
 * @param {string} playerId @param {string} name @param {Tournament} t */
async function keepSeat(gameId, playerId, name, t) {
  if (findGame(gameId)?.seats.some((s) => s.token)) return;
  const key = player()?.api_key;
  if (!key) return;
  try {
    /** @type {Schemas["GameOut"]} */
    const game = await api(`/v1/games/${encodeURIComponent(gameId)}`);
    const seat = (game.seats || []).find((s) => s.player_id === playerId);
    if (seat) saveGame({ game_id: gameId, game: t.game, title: gameTitle(t.game), player: name, seats: [{ seat: seat.seat, token: key, bot: null }] });
  } catch { /* the link still opens the game; the page then watches it */ }
}

/** The standings table (the final one once the event ended). @param {Standing[]} rows */
async function renderStandings(rows) {
  const t = /** @type {Tournament} */ (shown.event);
  const final = t.status === "finished" || shown.ended;
  const arena = isArena(t); // an arena scores no byes: no column for them
  $("tour-standings-h").textContent = ui(final ? "tour_final_standings" : "tour_standings");
  const me = player()?.player_id;
  if (!rows.length) {
    $("tour-standings").replaceChildren(h("p", { class: "muted" }, ui("tour_no_entrants")));
    return;
  }
  const who = await Promise.all(rows.map((r) => nameOf(r.player_id)));
  $("tour-standings").replaceChildren(labelColumns(h("table", { class: `grid-table standings-table${final ? " final-standings" : ""}` },
    h("caption", { class: "sr-only" }, ui(final ? "tour_final_standings" : "tour_standings")),
    h("thead", {}, h("tr", {}, [ui("tour_rank"), ui("final_player"), ui("tour_points"), ui("tour_buchholz"), ui("tour_game_score"),
      ui("tour_games"), arena ? "" : ui("tour_byes_count")].filter(Boolean).map((w) => h("th", { scope: "col" }, w)))),
    h("tbody", {}, rows.map((r, i) => h("tr", { class: r.player_id === me ? "me" : null, "data-player-id": r.player_id },
      h("td", { "data-key": "rank" }, number(r.rank)),
      h("th", { scope: "row" }, who[i], r.player_id === me ? ui("tour_you_tag") : "", r.withdrawn ? ui("tour_withdrawn_tag") : ""),
      h("td", { "data-key": "points" }, points(r.points)),
      h("td", { "data-key": "buchholz" }, points(r.buchholz)),
      h("td", { "data-key": "game_score" }, number(r.game_score)),
      h("td", {}, number(r.games)),
      arena ? "" : h("td", {}, number(r.byes))))))));
}

/** Every round paired so far, latest first: each table's players (with their places once it ended) and its game.
 * @param {Round[]} rounds */
async function renderRounds(rounds) {
  const root = $("tour-rounds-list");
  const arena = isArena(/** @type {Tournament} */ (shown.event));
  if (!rounds.some((r) => r.tables.length || r.byes.length)) {
    root.replaceChildren(h("p", { class: "muted" }, ui(arena ? "tour_arena_no_tables" : "tour_no_rounds")));
    return;
  }
  const sorted = [...rounds].sort((a, b) => b.round - a.round);
  const blocks = await Promise.all(sorted.map(async (r) => {
    const tables = await Promise.all(r.tables.map(async (table) => {
      const who = await Promise.all(table.players.map(nameOf));
      const seated = who.map((n, i) => (table.places ? ui("tour_player_place", { name: n, place: ordinal(table.places[i]) }) : n)).join(", ");
      const aborted = table.ended && !table.places;
      return h("li", { "data-table": table.number }, ui("tour_table_n", { n: table.number }), ": ", seated,
        aborted ? [" — ", ui("tour_table_aborted")]
          : table.game_id ? [" — ", h("a", { href: `/game.html?id=${encodeURIComponent(table.game_id)}` },
            ui(table.places ? "tour_open_record" : "tour_watch"))] : "");
    }));
    const byes = await Promise.all(r.byes.map(nameOf));
    // an arena's tables are one list in the order seated, under the section's heading: no round to name
    return h("div", { class: "tour-round", "data-round": r.round }, arena ? "" : h("h4", {}, ui("tour_round_n", { n: r.round })),
      h("ul", {}, tables, byes.length ? h("li", {}, ui("tour_byes_list", { names: byes.join(", ") })) : ""));
  }));
  root.replaceChildren(...blocks);
}

/** Follow the event's feed until its end: each pairing and the end re-read the record, each standings event shows
 * at once. A dropped feed resumes after the last event seen (Last-Event-ID). @param {string} id */
async function follow(id) {
  /** @type {string | null} */
  let last = null;
  for (let attempt = 0; !shown.ended; attempt++) {
    try {
      await readEvents(`/v1/tournaments/${encodeURIComponent(id)}/events`, {
        headers: last ? { "Last-Event-ID": last } : {},
        onOpen: () => { attempt = 0; },
        onEvent: (ev) => {
          if (ev.id) last = ev.id;
          const data = /** @type {{standings?: Standing[]}} */ (ev.data || {});
          if (ev.event === "end") shown.ended = true;
          if ((ev.event === "standings" || ev.event === "end") && data.standings && shown.record) {
            shown.live = data.standings;
            renderStandings(data.standings);
          }
          if (ev.event === "pairing" || ev.event === "end") refreshSoon(id);
        },
      });
    } catch (err) {
      if (err instanceof ApiError && err.status === 404) return;
    }
    if (shown.ended) return;
    await new Promise((resolve) => setTimeout(resolve, Math.min(15_000, 1000 * 2 ** attempt)));
  }
}

/** @type {ReturnType<typeof setTimeout> | undefined} */
let refreshTimer;
/** Read the record again shortly (a burst of feed events reads it once). @param {string} id */
function refreshSoon(id) {
  clearTimeout(refreshTimer);
  refreshTimer = setTimeout(() => loadEvent(id).catch((err) => status(errorText(err).text, true)), 100);
}

// ------------------------------------------------------------------------------------------------ the page

async function main() {
  const id = new URLSearchParams(location.search).get("id");
  try {
    [catalog] = await Promise.all([api("/v1/catalog"), loadCatalogue()]);
    localize();
    for (const g of catalog.games) g.title = titleOf(g.name, g.title);
    if (id) {
      await loadEvent(id);
      $("tour-event").hidden = false;
      if (shown.event?.status !== "finished") follow(id); // a finished event's feed has nothing more to say
      setInterval(() => { if (shown.event?.status !== "finished") loadEvent(id).catch(() => {}); }, RECORD_POLL_MS);
    } else {
      await renderLists();
      setupCreateForm();
      $("tour-list").hidden = false;
      $("tour-create").hidden = false;
    }
  } catch (err) {
    const missing = err instanceof ApiError && err.status === 404;
    status(missing ? ui("tour_not_found") : ui("gateway_down", { message: errorText(err).text }), true);
  }
  document.querySelector("main")?.classList.remove("loading");
}

main();
