// @ts-check
// The lobby: catalog, game creation (humans and bots), matchmaking and the list of my games.
import { api } from "./api.js";
import { asPlayer, ensurePlayer } from "./account.js";
import { choiceName, optionName, titleOf } from "./catalog_words.js";
import { h, labelColumns } from "./dom.js";
import { catalogue, errorText, loadCatalogue, localize, number, ui } from "./i18n.js";
import { showFieldError } from "./field_error.js";
import { botName, levelLabel as sharedLevelLabel } from "./levels.js";
import { choiceLabel, choicesFor } from "./seat_options.js";
import { forgetGame, myGames, player, saveGame } from "./store.js";
import { correspondenceNotifyWanted, notifyPermission, setCorrespondenceNotify, startTurnNotifications } from "./turn_notify.js";

/** An element of the page by id. @param {string} id */
const $ = (id) => /** @type {HTMLElement} */ (document.getElementById(id));
/** An <input> of the page by id. @param {string} id */
const $input = (id) => /** @type {HTMLInputElement} */ (document.getElementById(id));
/** A <select> of the page by id. @param {string} id */
const $select = (id) => /** @type {HTMLSelectElement} */ (document.getElementById(id));
/** A <button> of the page by id. @param {string} id */
const $button = (id) => /** @type {HTMLButtonElement} */ (document.getElementById(id));
/** @typedef {import("./types.js").Schemas} Schemas */
/** @typedef {Schemas["Catalog"]} Catalog */
/** @typedef {Schemas["CatalogGame"]} CatalogGame */
/** @typedef {Schemas["BotLevel"]} BotLevel */
/** @typedef {import("./store.js").StoredPlayer} StoredPlayer */
/** A game option of the catalog: its choices, the default and what it does. @typedef {{choices?: unknown[], default?: unknown, description?: string}} GameOption */

/** @type {Catalog} */
let catalog = { games: [], bot_levels: [] };

/** A game's options, each with its choices. @param {CatalogGame} g @returns {[string, GameOption][]} */
const optionsOf = (g) => /** @type {[string, GameOption][]} */ (Object.entries(g.options));

/** @param {string} text @param {boolean} [isError] */
function status(text, isError = false) {
  const el = $("lobby-status");
  el.textContent = text;
  el.classList.toggle("error", isError);
}

/** The catalog's game `name`. @param {string} name @returns {CatalogGame} */
function gameByName(name) {
  const found = catalog.games.find((g) => g.name === name);
  if (!found) throw new Error(`no game ${name} in the catalog`);
  return found;
}

// The catalog's option names, choices and descriptions and the bot levels' descriptions are the server's English:
// the client shows the catalogue's words for them when it has them (ui.option_*, choice_*, level_about_*).
/** @param {string} game @param {string} k @param {GameOption} o */
const optionAbout = (game, k, o) => (catalogue().ui?.[`option_about_${game}_${k}`] !== undefined ? ui(`option_about_${game}_${k}`)
  : o.description || "");
/** @param {BotLevel} d */
const levelAbout = (d) => {
  const key = d.name.replace(/-/g, "_");
  return catalogue().ui?.[`level_about_${key}`] !== undefined ? ui(`level_about_${key}`) : d.description;
};

function renderCatalog() {
  const table = $("catalog");
  table.replaceChildren(table.querySelector("caption") || "",
    h("thead", {}, h("tr", {}, [ui("lobby_game"), ui("lobby_players"), ui("lobby_options")].map((t) => h("th", { scope: "col" }, t)))),
    h("tbody", {}, catalog.games.map((g) => h("tr", {},
      h("th", { scope: "row" }, g.title),
      h("td", {}, `${g.min_players}–${g.max_players}`),
      h("td", {}, optionsOf(g).map(([k, o]) => h("div", {}, h("b", {}, optionName(k)),
        `: ${(o.choices || []).map(choiceName).join(", ")} `, h("span", { class: "muted" }, optionAbout(g.name, k, o))))))),
    ));
  for (const sel of [$select("create-game"), $select("match-game")]) {
    sel.replaceChildren(...catalog.games.map((g) => h("option", { value: g.name }, g.title)));
  }
}

function renderCreateForm() {
  const g = catalog.games.find((x) => x.name === $select("create-game").value);
  if (!g) return;
  const players = $input("create-players");
  players.min = String(g.min_players);
  players.max = String(g.max_players);
  const n = Math.min(g.max_players, Math.max(g.min_players, Number(players.value) || g.min_players));
  players.value = String(n);
  const opts = $("create-options");
  // keep the options already chosen for this game (changing the player count must not reset the map)
  const chosen = opts.dataset.game === g.name
    ? Object.fromEntries([...opts.querySelectorAll("select")].map((sel) => [sel.dataset.option, sel.value])) : {};
  opts.dataset.game = g.name;
  opts.replaceChildren(opts.querySelector("legend") || "", ...optionsOf(g).map(([k, o]) =>
    h("label", {}, optionName(k), " ", h("select", { name: `option-${k}`, "data-option": k },
      choicesFor(k, o.choices || [], n).map((c) => h("option", { value: JSON.stringify(c),
        selected: k in chosen ? chosen[k] === JSON.stringify(c) : c === o.default }, choiceLabel(k, c, choiceName)))))));
  if (!Object.keys(g.options).length) opts.append(h("span", { class: "muted" }, ui("none")));
  const seats = $("create-seats");
  const before = [...seats.querySelectorAll("select")].map((s) => s.value);
  const kinds = ["human", ...offeredLevels(g).map((l) => `bot:${l}`)];
  seats.replaceChildren(seats.querySelector("legend") || "", ...Array.from({ length: n }, (_, i) =>
    h("span", { class: "seat-field" }, h("label", { for: `seat-kind-${i}` }, ui("player_n", { n: i + 1 })), " ",
      h("select", { id: `seat-kind-${i}`, name: `seat-${i}` },
        kinds.map((k) => h("option", { value: k, selected: (before[i] ?? (i === 0 ? "human" : "bot:random")) === k,
          title: k === "human" ? null : k.slice(4) }, k === "human" ? ui("seat_human") : botLabel(k.slice(4), g)))))),
    levelTable(g) || "");
  $input("match-players").value ||= String(g.min_players);
}

/** Seconds as people say them: "instant", "0.1 s", "1.6 s". @param {number} sec */
const thinkTime = (sec) => (sec < 0.005 ? ui("level_instant")
  : ui("seconds", { n: number(sec, sec < 0.1 ? 2 : 1) }));

/** The levels game `g` offers, weakest first: those that play as themselves there (an old name that plays as
 * another level is its alias, still accepted by the API, not offered). @param {CatalogGame} g */
function offeredLevels(g) {
  const details = catalog.bot_level_details || [];
  return details.length ? details.filter((d) => d.games?.[g.name]?.offered !== false).map((d) => d.name) : catalog.bot_levels;
}

/** What a player is told level `level` is called in game `g` (Beginner, Casual, Strong, Expert), in the page's
 * language (levels.js). @param {string} level @param {CatalogGame} g */
const levelLabel = (level, g) => sharedLevelLabel(catalog, level, g.name);

/** A bot level's choice in game `g` (the catalog's bot_level_details): its label and its think time (the engine's
 * level id is the option's tooltip, not its words). @param {string} level @param {CatalogGame} g */
function botLabel(level, g) {
  const here = (catalog.bot_level_details || []).find((d) => d.name === level)?.games?.[g.name];
  const note = !here || here.think_seconds == null ? null
    : here.think_seconds < 0.005 ? ui("level_instant") : ui("level_thinks", { time: thinkTime(here.think_seconds) });
  const label = levelLabel(level, g);
  return note ? ui("seat_bot_level_note", { label, note }) : ui("seat_bot_level", { label });
}

/** A rating with its 95% interval, "+306 [+245, +366]". @param {number} x */
const signed = (x) => `${x > 0 ? "+" : ""}${number(Math.round(x), 0)}`;

/** The ladder of game `g`: each level it offers, weakest first, with what it is, its think time a move and its
 * rating at every player count (one fit per table size over the stored paired games, with a 95% interval; "not
 * measured" where none tie it to the others). @param {CatalogGame} g */
function levelTable(g) {
  const details = catalog.bot_level_details || [];
  if (!details.length) return null;
  const counts = Array.from({ length: g.max_players - g.min_players + 1 }, (_, i) => String(g.min_players + i));
  return h("details", { class: "bot-levels" }, h("summary", {}, ui("levels_about", { title: g.title })),
    labelColumns(h("table", {}, h("caption", { class: "sr-only" }, ui("levels_caption", { title: g.title })),
      h("thead", {}, h("tr", {}, [ui("levels_level"), ui("levels_what"), ui("levels_think"),
        ...counts.map((n) => ui("levels_rating_players", { n: Number(n) }))].map((t) => h("th", { scope: "col" }, t)))),
      h("tbody", {}, details.filter((d) => d.games?.[g.name]?.offered !== false).map((d) => {
        /** @type {Schemas["BotLevelGame"]} */
        const here = d.games?.[g.name] || {};
        const aliases = details.filter((a) => a.games?.[g.name]?.same_as === d.name).map((a) => a.name);
        // the engine's level id and the old names that play as it: the API's names, a tooltip for who wants them
        const ids = [ui("levels_engine", { level: d.name }), aliases.length ? ui("levels_aliases", { names: aliases.join(", ") }) : ""];
        return h("tr", {}, h("th", { scope: "row", title: ids.filter(Boolean).join(" · ") }, levelLabel(d.name, g)),
          h("td", {}, levelAbout(d)),
          h("td", {}, here.think_seconds == null ? "—" : thinkTime(here.think_seconds)),
          ...counts.map((n) => {
            const r = here.ratings?.[n];
            return h("td", {}, r ? ui("levels_interval", { rating: signed(r.rating), low: signed(r.low), high: signed(r.high) })
              : ui("levels_not_measured"));
          }));
      })))));
}

/** The New game form's submit: create the game as this browser's player, remember its seats, open it.
 * @param {SubmitEvent} ev */
async function createGame(ev) {
  ev.preventDefault();
  const g = gameByName($select("create-game").value);
  const players = Number($input("create-players").value);
  /** @type {Record<string, unknown>} */
  const options = {};
  for (const sel of $("create-options").querySelectorAll("select")) options[sel.dataset.option || ""] = JSON.parse(sel.value);
  /** @type {Record<string, string>} */
  const bots = {};
  /** @type {number[]} */
  const humans = [];
  for (let i = 0; i < players; i++) {
    const kind = $select(`seat-kind-${i}`).value;
    if (kind.startsWith("bot:")) bots[String(i)] = kind.slice(4);
    else humans.push(i);
  }
  // every human seat is played in this browser (hot-seat): the account holds them all, which the server does only
  // when asked (by default a creator holds its first human seat, the others' tokens being for guests)
  /** @type {Schemas["CreateGame"]} */
  const body = { game: g.name, players, options, bots, account_seats: humans };
  if ($input("create-seed").value !== "") body.seed = Number($input("create-seed").value);
  if ($input("create-turn-seconds").value !== "") body.turn_seconds = Number($input("create-turn-seconds").value);
  $button("create-submit").disabled = true;
  showFieldError($("create-error"), null);
  try {
    // the account this browser keeps plays every game it creates, whatever the matchmaking form's name says: a game
    // against bots never costs a sign-up once the browser has an account (sign-ups are bounded per address)
    const created = await asPlayer(player() ? null : $input("match-name").value.trim() || null,
      (me) => api("/v1/games", { method: "POST", token: me.api_key, body }));
    saveGame({ game_id: created.game_id, game: g.name, title: g.title, seats: created.seats, player: created.me.name });
    status(ui("created_game", { title: g.title, id: created.game_id }));
    location.href = `/game.html?id=${encodeURIComponent(created.game_id)}`;
  } catch (err) {
    // beside the button, in the page's language, with the time to wait where the server said
    showFieldError($("create-error"), err, (message) => ui("create_failed", { message }));
  } finally {
    $button("create-submit").disabled = false;
  }
}

/** @type {ReturnType<typeof setInterval> | undefined} */
let polling;

/** The Find a match form's submit: a matchmaking ticket, polled until it is matched. @param {SubmitEvent} ev */
async function findMatch(ev) {
  ev.preventDefault();
  const name = $input("match-name").value.trim();
  const g = gameByName($select("match-game").value);
  showFieldError($("match-error"), null);
  try {
    const me = await ensurePlayer(name);
    /** @type {Record<string, unknown>} the fields of Schemas["NewTicket"] this form sets (the rest: the server's defaults) */
    const body = { game: g.name, players: Number($input("match-players").value), options: {} };
    if ($input("match-bots").value !== "") body.bots_after_s = Number($input("match-bots").value);
    const ticket = await api("/v1/matchmaking/tickets", { method: "POST", token: me.api_key, body });
    $("match-status").textContent = ui("searching", { title: g.title });
    $("match-status").title = "";
    $("match-cancel").hidden = false;
    $("match-cancel").onclick = async () => {
      clearInterval(polling);
      await api(`/v1/matchmaking/tickets/${ticket.ticket_id}`, { method: "DELETE", token: me.api_key }).catch(() => {});
      $("match-status").textContent = ui("search_cancelled");
      $("match-cancel").hidden = true;
    };
    clearInterval(polling);
    polling = setInterval(() => pollTicket(ticket.ticket_id, me, g), 1000);
  } catch (err) {
    $("match-status").textContent = "";
    showFieldError($("match-error"), err, (message) => ui("match_failed", { message }));
  }
}

/** What the lobby says when a search ends without a game: the ticket's status in the page's language, and as the
 * tooltip why, in the server's English (`note`: a refused ticket's player is at a quota, which one and the count).
 * @param {{status: string, note?: string | null}} t @returns {{text: string, detail: string}} */
export function searchEndText(t) {
  const text = catalogue().ui?.[`search_${t.status}`] !== undefined ? ui(`search_${t.status}`)
    : ui("search_ended", { status: t.status });
  return { text, detail: t.note || "" };
}

/** @param {string} ticketId @param {StoredPlayer} me @param {CatalogGame} g */
async function pollTicket(ticketId, me, g) {
  try {
    const t = await api(`/v1/matchmaking/tickets/${ticketId}`, { token: me.api_key });
    if (t.status === "queued") return;
    clearInterval(polling);
    $("match-cancel").hidden = true;
    if (t.status === "matched") {
      // only one poll ever carries the token: a later (overlapping) answer without it must not erase it
      if (t.token) saveGame({ game_id: t.game_id, game: g.name, title: g.title, player: me.name, seats: [{ seat: t.seat, token: t.token, bot: null }] });
      $("match-status").replaceChildren(ui("matched"), " ", h("a", { href: `/game.html?id=${t.game_id}` }, ui("open_game")));
      renderMine();
    } else {
      const said = searchEndText(t);
      $("match-status").textContent = said.text;
      $("match-status").title = said.detail;
    }
  } catch (err) {
    clearInterval(polling);
    $("match-status").textContent = "";
    showFieldError($("match-error"), err, (message) => ui("match_failed", { message }));
  }
}

/** Player names by account id, asked once per page (GET /v1/players/{id}). @type {Map<string, Promise<string | null>>} */
const accountNames = new Map();
/** @param {string} id */
function accountName(id) {
  let name = accountNames.get(id);
  if (!name) {
    name = api(`/v1/players/${encodeURIComponent(id)}`, { tries: 2 }).then((p) => p.name, () => null);
    accountNames.set(id, name);
  }
  return name;
}


/**
 * Who I play against in a game (its other seats: players by their account names, bots by level); null when every
 * seat is mine (hot-seat). @param {{game?: string, seats?: {seat: number, kind: string, player_id: string | null, bot_level: string | null}[], bots?: Record<string, string>}} d
 * @param {number[]} mine
 */
async function opponents(d, mine) {
  const others = (d.seats || []).filter((s) => !mine.includes(s.seat));
  if (!others.length) return null;
  // the platform's bots by level; a bot account's seat (kind "bot" too) by its account's name, as a person's
  const names = await Promise.all(others.map(async (s) => (s.kind === "bot" && !s.player_id
    ? botName(catalog, s.bot_level || d.bots?.[String(s.seat)] || "", d.game || "")
    : (s.player_id && await accountName(s.player_id)) || ui("player_n", { n: s.seat + 1 }))));
  return ui("game_against", { names: names.join(", ") });
}

/** "1st", "2nd"... in the language. @param {number} n */
const ordinal = (n) => (n <= 3 ? ui(`place_${n}`) : ui("place_n", { n }));

/** How a finished game went for me: each seat of mine with its place and score. The place is the platform's result
 * (`places`: the rules' order, tie-breaks included, with a seat that resigned or was abandoned last), never worked
 * out here from the scores; the seats of mine are the ones I hold, never the bots the game was created with.
 * @param {{status: string, scores: number[] | null, winners: number[] | null, places?: number[] | null, players: number,
 *   seats?: {seat: number, status: string}[]}} d @param {number[]} mine */
function result(d, mine) {
  if (d.status === "aborted") return ui("game_aborted");
  const places = d.places || [];
  const winners = d.winners || [];
  const one = (/** @type {number} */ s) => {
    const place = places[s];
    if (place === undefined) return ui("game_finished");
    const score = (d.scores || [])[s] ?? 0;
    const left = (d.seats || []).find((x) => x.seat === s)?.status;
    const placed = { place: ordinal(place), players: d.players, score };
    if (left === "resigned") return ui("game_resigned", placed);
    if (left === "abandoned") return ui("game_abandoned", placed);
    if (winners.includes(s)) return ui(winners.length > 1 ? "game_won_shared" : "game_won", { score });
    return ui("game_result", placed);
  };
  if (!mine.length) return ui("game_finished");
  if (mine.length === 1) return one(mine[0]);
  return mine.map((s) => ui("game_seat_result", { player: ui("player_n", { n: s + 1 }), result: one(s) })).join("; ");
}

/**
 * The finished games of my account from the platform's archive history (GET /v1/players/{id}/games), as My games
 * entries: they are listed on every device, not only in the browser that played them (docs/decisions/webclient-trial.md). None without an
 * account or when the history cannot be read (My games then shows this browser's games alone).
 * @returns {Promise<{game_id: string, game: string, title: string, created: string, seats: {seat: number, token: null}[], archived: true}[]>}
 */
async function archivedGames() {
  const me = player();
  if (!me?.player_id) return [];
  try {
    /** @type {{games: {game_id: string, game: string, seats: number[], created_ms: number}[]}} */
    const history = await api(`/v1/players/${encodeURIComponent(me.player_id)}/games?limit=50`);
    return history.games.map((g) => ({ game_id: g.game_id, game: g.game, title: titleOf(g.game, g.game),
      created: new Date(g.created_ms).toISOString(), seats: g.seats.map((seat) => ({ seat, token: null })), archived: true }));
  } catch {
    return [];
  }
}

/** My games: each one's title, whom I play against, and how it stands or ended (docs/decisions/webclient-trial.md, item 10): this browser's
 * games and my account's archived ones, newest first. */
async function renderMine() {
  const list = $("my-games");
  const local = myGames();
  const held = new Set(local.map((g) => g.game_id));
  const games = [...local, ...(await archivedGames()).filter((g) => !held.has(g.game_id))]
    .sort((a, b) => String(b.created || "").localeCompare(String(a.created || "")));
  if (!games.length) { list.replaceChildren(h("li", { class: "muted" }, ui("no_games_yet"))); return; }
  list.replaceChildren(...games.map((g) => {
    const st = h("span", { class: "muted game-state" }, "…");
    const against = h("span", { class: "against" }, "");
    const seats = g.seats.filter((s) => s.token).map((s) => s.seat);
    const archived = "archived" in g;
    const item = h("li", { "data-game-id": g.game_id, "data-source": archived ? "archive" : "browser" },
      h("a", { href: `/game.html?id=${encodeURIComponent(g.game_id)}`, title: g.game_id }, titleOf(g.game || "", g.title || g.game || "")),
      " — ", against, " — ", st, " ",
      archived ? null : h("button", { type: "button", class: "small", "aria-label": ui("forget_game", { id: g.game_id }),
        onclick: () => { forgetGame(g.game_id); renderMine(); } }, ui("forget")));
    // my seats: the ones my account held (archive) or this browser holds a token of, never the bots the game was
    // created with (they are opponents). Read as a spectator sees it: all the list shows is public, and a seat
    // that resigned no longer has a token that works.
    const mine = archived ? g.seats.map((s) => s.seat) : seats;
    const here = mine.length;
    api(`/v1/games/${encodeURIComponent(g.game_id)}`).then(async (d) => {
      against.textContent = (await opponents(d, mine)) || ui("seats_here", { n: here });
      const myTurn = d.to_act.some((/** @type {number} */ x) => seats.includes(x));
      st.textContent = d.status === "active" ? ui(myTurn ? "game_your_turn" : "game_waiting") : result(d, mine);
    }).catch((err) => { st.textContent = errorText(err).text; against.textContent = ui("seats_here", { n: here }); });
    return item;
  }));
}

/** The Notifications setting: on only while the browser allows notifications; turning it on asks the browser. */
function setupNotifySetting() {
  const box = $input("notify-correspondence");
  const note = $("notify-note");
  const refused = () => (notifyPermission() === "unsupported" ? ui("notify_corr_unsupported") : ui("notify_corr_denied"));
  box.checked = correspondenceNotifyWanted() && notifyPermission() === "granted";
  // asked for in this browser, but notifications were blocked since: say so rather than show it on
  note.textContent = correspondenceNotifyWanted() && !box.checked ? refused() : "";
  box.addEventListener("change", async () => {
    const on = await setCorrespondenceNotify(box.checked);
    note.textContent = box.checked && !on ? refused() : "";
    box.checked = on;
  });
  startTurnNotifications();
}

/** My rating in each title I have played rated games of, and my place on its leaderboard (docs/decisions/webclient-trial.md, item 10). */
async function renderRatings() {
  const root = $("my-rating");
  const me = player();
  const none = () => root.replaceChildren(h("p", { class: "muted" }, ui("rating_none")));
  if (!me?.api_key) { none(); return; }
  try {
    const account = await api("/v1/players/me", { token: me.api_key });
    const rated = Object.entries(account.ratings || {}).filter(([, r]) => r.games > 0);
    if (!rated.length) { none(); return; }
    const rows = await Promise.all(rated.map(async ([game, r]) => {
      const board = await api(`/v1/leaderboard/${encodeURIComponent(game)}?limit=500`).catch(() => null);
      const entry = board?.entries.find((/** @type {{player_id: string}} */ e) => e.player_id === account.player_id);
      return h("tr", { "data-game": game }, h("th", { scope: "row" }, titleOf(game, game)),
        h("td", { "data-key": "rating" }, number(Math.round(r.ordinal))), h("td", {}, number(r.games)),
        h("td", { "data-key": "place" }, entry ? ui("rating_place", { rank: entry.rank }) : ui("rating_unplaced")));
    }));
    root.replaceChildren(h("table", { class: "grid-table ratings-table" },
      h("caption", { class: "sr-only" }, ui("lobby_my_rating")),
      h("thead", {}, h("tr", {}, [ui("rating_game"), ui("levels_rating"), ui("rating_games"), ui("rating_place_h")]
        .map((w) => h("th", { scope: "col" }, w)))),
      h("tbody", {}, rows)));
  } catch (err) {
    root.replaceChildren(h("p", { class: "muted" }, errorText(err).text));
  }
}

async function main() {
  try {
    [catalog] = await Promise.all([api("/v1/catalog"), loadCatalogue()]);
    localize();
    for (const g of catalog.games) g.title = titleOf(g.name, g.title);
  } catch (err) {
    status(ui("gateway_down", { message: errorText(err).text }), true);
    document.querySelector("main")?.classList.remove("loading");
    return;
  }
  renderCatalog();
  renderCreateForm();
  $select("create-game").addEventListener("change", renderCreateForm);
  $input("create-players").addEventListener("change", renderCreateForm);
  $("create-form").addEventListener("submit", createGame);
  $("match-form").addEventListener("submit", findMatch);
  $select("match-game").addEventListener("change", () => {
    $input("match-players").value = String(gameByName($select("match-game").value).min_players);
  });
  $input("match-players").value = String(catalog.games[0]?.min_players ?? 2);
  $input("match-name").value = player()?.name || "";
  renderMine();
  renderRatings();
  setupNotifySetting();
  status(ui("games_available", { n: catalog.games.length }));
  document.querySelector("main")?.classList.remove("loading"); // the forms appear once, filled: no layout shift
}

main();
