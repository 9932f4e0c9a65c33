// @ts-check
// The lobby: catalog, game creation (humans and bots), matchmaking and the list of my games.
import { api } from "./api.js";
import { h, show, words } from "./dom.js";
import { catalogue, errorText, loadCatalogue, localize, number, ui } from "./i18n.js";
import { forgetGame, myGames, player, saveGame, savePlayer } from "./store.js";

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
/** @param {string} k */
const optionName = (k) => (catalogue().ui?.[`option_${k}`] !== undefined ? ui(`option_${k}`) : words(k));
/** @param {unknown} c */
const choiceName = (c) => (typeof c === "string" && catalogue().ui?.[`choice_${c}`] !== undefined ? ui(`choice_${c}`) : show(c));
/** @param {string} game @param {string} k @param {GameOption} o */
const optionAbout = (game, k, o) => (catalogue().ui?.[`option_about_${game}_${k}`] !== undefined ? ui(`option_about_${game}_${k}`)
  : o.description || "");
/** A game's title in the page's language (the catalogue's ui.game_title_<game>; the catalog's English otherwise).
 * @param {string} name @param {string} fallback */
const titleOf = (name, fallback) => (catalogue().ui?.[`game_title_${name}`] !== undefined ? ui(`game_title_${name}`) : fallback);
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
      (o.choices || []).map((c) => h("option", { value: JSON.stringify(c),
        selected: k in chosen ? chosen[k] === JSON.stringify(c) : c === o.default }, choiceName(c)))))));
  if (!Object.keys(g.options).length) opts.append(h("span", { class: "muted" }, ui("none")));
  const seats = $("create-seats");
  const before = [...seats.querySelectorAll("select")].map((s) => s.value);
  const kinds = ["human", ...catalog.bot_levels.map((l) => `bot:${l}`)];
  seats.replaceChildren(seats.querySelector("legend") || "", ...Array.from({ length: n }, (_, i) =>
    h("span", { class: "seat-field" }, h("label", { for: `seat-kind-${i}` }, ui("player_n", { n: i + 1 })), " ",
      h("select", { id: `seat-kind-${i}`, name: `seat-${i}` },
        kinds.map((k) => h("option", { value: k, selected: (before[i] ?? (i === 0 ? "human" : "bot:random")) === k },
          k === "human" ? ui("seat_human") : botLabel(k.slice(4), g)))))),
    levelTable(g) || "");
  $input("match-players").value ||= String(g.min_players);
}

/** Seconds as people say them: "instant", "0.1 s", "1.6 s". @param {number} sec */
const thinkTime = (sec) => (sec < 0.005 ? ui("level_instant")
  : ui("seconds", { n: number(sec, sec < 0.1 ? 2 : 1) }));

/** A bot level's choice in game `g` (the catalog's bot_level_details): its think time, or the level it plays as.
 * @param {string} level @param {CatalogGame} g */
function botLabel(level, g) {
  const here = (catalog.bot_level_details || []).find((d) => d.name === level)?.games?.[g.name];
  const note = !here ? null : here.same_as ? ui("level_plays_as", { level: here.same_as, title: g.title })
    : here.think_seconds == null ? null
      : here.think_seconds < 0.005 ? ui("level_instant") : ui("level_thinks", { time: thinkTime(here.think_seconds) });
  return note ? ui("seat_bot_note", { level, note }) : ui("seat_bot", { level });
}

/** The bot levels of game `g`: what each is, its think time per move and its rating over the ladder's games.
 * @param {CatalogGame} g */
function levelTable(g) {
  const details = catalog.bot_level_details || [];
  if (!details.length) return null;
  return h("details", { class: "bot-levels" }, h("summary", {}, ui("levels_about", { title: g.title })),
    h("table", {}, h("caption", { class: "sr-only" }, ui("levels_caption", { title: g.title })),
      h("thead", {}, h("tr", {}, [ui("levels_level"), ui("levels_what"), ui("levels_think"), ui("levels_rating")]
        .map((t) => h("th", { scope: "col" }, t)))),
      h("tbody", {}, details.map((d) => {
        /** @type {Schemas["BotLevelGame"]} */
        const here = d.games?.[g.name] || {};
        return h("tr", {}, h("th", { scope: "row" }, d.name),
          h("td", {}, here.same_as ? ui("levels_same_as", { level: here.same_as, title: g.title, description: levelAbout(d) })
            : levelAbout(d)),
          h("td", {}, here.think_seconds == null ? "—" : thinkTime(here.think_seconds)),
          h("td", {}, here.rating == null ? ui("levels_not_measured") : number(here.rating, 1)));
      }))));
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
  for (let i = 0; i < players; i++) {
    const kind = $select(`seat-kind-${i}`).value;
    if (kind.startsWith("bot:")) bots[String(i)] = kind.slice(4);
  }
  /** @type {Schemas["CreateGame"]} */
  const body = { game: g.name, players, options, bots };
  if ($input("create-seed").value !== "") body.seed = Number($input("create-seed").value);
  if ($input("create-turn-seconds").value !== "") body.turn_seconds = Number($input("create-turn-seconds").value);
  $button("create-submit").disabled = true;
  try {
    const me = await ensurePlayer($input("match-name").value.trim() || null);
    const created = await api("/v1/games", { method: "POST", token: me.api_key, body });
    saveGame({ game_id: created.game_id, game: g.name, title: g.title, seats: created.seats, player: me.name });
    status(ui("created_game", { title: g.title, id: created.game_id }));
    location.href = `/game.html?id=${encodeURIComponent(created.game_id)}`;
  } catch (err) {
    status(ui("create_failed", { message: errorText(err).text }), true);
  } finally {
    $button("create-submit").disabled = false;
  }
}

/** This browser's player account, made on first use (creating a game or a ticket needs its API key);
 * a new one when `name` differs from the stored one's (null: any name will do).
 * @param {string | null} name @returns {Promise<StoredPlayer>} */
async function ensurePlayer(name) {
  const me = player();
  if (me && (name === null || me.name === name)) return me;
  const chosen = name ?? ui("default_player_name");
  const created = await api("/v1/players", { method: "POST", body: { name: chosen } });
  const fresh = { name: chosen, ...created };
  savePlayer(fresh);
  return fresh;
}

/** @type {ReturnType<typeof setInterval> | undefined} */
let polling;

/** The Find a match form's submit: a matchmaking ticket, polled until it is matched. @param {SubmitEvent} ev */
async function findMatch(ev) {
  ev.preventDefault();
  const name = $input("match-name").value.trim();
  const g = gameByName($select("match-game").value);
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
    $("match-status").textContent = ui("match_failed", { message: errorText(err).text });
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
    $("match-status").textContent = ui("match_failed", { message: errorText(err).text });
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

/** "Greedy bot", as the game page names a bot seat. @param {string} level */
const botName = (level) => ui("bot", { level: level.charAt(0).toUpperCase() + level.slice(1) });

/**
 * Who I play against in a game (its other seats: players by their account names, bots by level); null when every
 * seat is mine (hot-seat). @param {{seats?: {seat: number, kind: string, player_id: string | null, bot_level: string | null}[], bots?: Record<string, string>}} d
 * @param {number[]} mine
 */
async function opponents(d, mine) {
  const others = (d.seats || []).filter((s) => !mine.includes(s.seat));
  if (!others.length) return null;
  const names = await Promise.all(others.map(async (s) => (s.kind === "bot" ? botName(s.bot_level || d.bots?.[String(s.seat)] || "")
    : (s.player_id && await accountName(s.player_id)) || ui("player_n", { n: s.seat + 1 }))));
  return ui("game_against", { names: names.join(", ") });
}

/** How a finished game went for my best seat: won, or my place and score ("2nd of 3, 41 points").
 * @param {{status: string, scores: number[] | null, winners: number[] | null, players: number}} d @param {number[]} mine */
function result(d, mine) {
  if (d.status === "aborted") return ui("game_aborted");
  const scores = d.scores || [];
  const winners = d.winners || [];
  const place = (/** @type {number} */ s) => (winners.includes(s) ? 1
    : 1 + scores.filter((x, o) => o !== s && (winners.includes(o) || x > scores[s])).length);
  const best = [...mine].sort((a, b) => place(a) - place(b))[0];
  if (best === undefined) return ui("game_finished");
  const rank = place(best);
  return winners.includes(best) ? ui("game_won", { score: scores[best] ?? 0 })
    : ui("game_result", { place: rank <= 3 ? ui(`place_${rank}`) : ui("place_n", { n: rank }), players: d.players, score: scores[best] ?? 0 });
}

/**
 * The finished games of my account from the platform's archive history (GET /v1/players/{id}/games), as My games
 * entries: they are listed on every device, not only in the browser that played them (issue #38). None without an
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

/** My games: each one's title, whom I play against, and how it stands or ended (issue #38 item 10): this browser's
 * games and my account's archived ones, newest first. */
async function renderMine() {
  const list = $("my-games");
  const local = myGames();
  const held = new Set(local.map((g) => g.game_id));
  const games = [...local, ...(await archivedGames()).filter((g) => !held.has(g.game_id))]
    .sort((a, b) => String(b.created || "").localeCompare(String(a.created || "")));
  if (!games.length) { list.replaceChildren(h("li", { class: "muted" }, ui("no_games_yet"))); return; }
  list.replaceChildren(...games.map((g) => {
    const st = h("span", { class: "muted" }, "…");
    const against = h("span", { class: "against" }, "");
    const seats = g.seats.filter((s) => s.token).map((s) => s.seat);
    const archived = "archived" in g;
    const item = h("li", { "data-game-id": g.game_id, "data-source": archived ? "archive" : "browser" },
      h("a", { href: `/game.html?id=${encodeURIComponent(g.game_id)}`, title: g.game_id }, titleOf(g.game || "", g.title || g.game || "")),
      " — ", against, " — ", st, " ",
      archived ? null : h("button", { type: "button", class: "small", "aria-label": ui("forget_game", { id: g.game_id }),
        onclick: () => { forgetGame(g.game_id); renderMine(); } }, ui("forget")));
    const token = g.seats.find((s) => s.token)?.token;
    const mine = g.seats.map((s) => s.seat);
    const here = archived ? mine.length : seats.length; // the seats I held (archive) or hold in this browser
    api(`/v1/games/${encodeURIComponent(g.game_id)}`, { token }).then(async (d) => {
      against.textContent = (await opponents(d, mine)) || ui("seats_here", { n: here });
      const myTurn = d.to_act.some((/** @type {number} */ x) => seats.includes(x));
      st.textContent = d.status === "active" ? ui(myTurn ? "game_your_turn" : "game_waiting") : result(d, mine);
    }).catch((err) => { st.textContent = errorText(err).text; against.textContent = ui("seats_here", { n: here }); });
    return item;
  }));
}

/** My rating in each title I have played rated games of, and my place on its leaderboard (issue #38 item 10). */
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
  status(ui("games_available", { n: catalog.games.length }));
  document.querySelector("main")?.classList.remove("loading"); // the forms appear once, filled: no layout shift
}

main();
