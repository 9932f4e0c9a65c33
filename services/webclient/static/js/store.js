// @ts-check
// The browser's memory of my games and players (localStorage): seat tokens never leave this browser.

const GAMES = "skyboard.games";
const PLAYER = "skyboard.player";

function read(key, fallback) {
  try { return JSON.parse(localStorage.getItem(key)) ?? fallback; } catch { return fallback; }
}

/** All games I hold at least one seat of: [{game_id, game, title, created, seats: [{seat, token, bot}]}]. */
export function myGames() { return read(GAMES, []); }

/** Remember a game, merging seats with what is already stored for it. */
export function saveGame(entry) {
  const games = myGames();
  const old = games.find((g) => g.game_id === entry.game_id);
  if (old) {
    const seats = new Map(old.seats.map((s) => [s.seat, s]));
    for (const s of entry.seats) seats.set(s.seat, s);
    Object.assign(old, entry, { seats: [...seats.values()].sort((a, b) => a.seat - b.seat) });
  } else {
    games.unshift({ created: new Date().toISOString(), ...entry });
  }
  localStorage.setItem(GAMES, JSON.stringify(games));
}

export function forgetGame(gameId) {
  localStorage.setItem(GAMES, JSON.stringify(myGames().filter((g) => g.game_id !== gameId)));
}

export function findGame(gameId) { return myGames().find((g) => g.game_id === gameId) || null; }

/** My seats with a token in a game (the human seats I may act for), sorted. */
export function mySeats(gameId) {
  const g = findGame(gameId);
  return g ? g.seats.filter((s) => s.token).sort((a, b) => a.seat - b.seat) : [];
}

export function player() { return read(PLAYER, null); }
export function savePlayer(p) { localStorage.setItem(PLAYER, JSON.stringify(p)); }
