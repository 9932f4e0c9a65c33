// @ts-check
// A game option whose numbers are seats (Blue Skies' "first_player": "random" or a seat number below the player count,
// BS-2.5): the New game form offers only the seats the game will have, named as the form names its seats ("Player
// 1" for seat 0), never 0-4 for a three-player game.
import { ui } from "./i18n.js";

/** The catalog's options whose numeric choices are seat numbers (the engine's description says so). */
const SEAT_OPTIONS = new Set(["first_player"]);

/** The choices of option `key` a game of `players` seats can take. @param {string} key @param {unknown[]} choices
 * @param {number} players @returns {unknown[]} */
export function choicesFor(key, choices, players) {
  return SEAT_OPTIONS.has(key) ? choices.filter((c) => typeof c !== "number" || (c >= 0 && c < players)) : choices;
}

/** A choice in words: a seat as "Player N", anything else as `other` says it.
 * @param {string} key @param {unknown} choice @param {(c: unknown) => string} other */
export function choiceLabel(key, choice, other) {
  return SEAT_OPTIONS.has(key) && typeof choice === "number" ? ui("player_n", { n: choice + 1 }) : other(choice);
}
