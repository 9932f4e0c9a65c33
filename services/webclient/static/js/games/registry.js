// @ts-check
// The registry of games the client can show: each one's presenter (games/<game>.js) and board (boards/<game>.js),
// checked against the one interface (types.js) by tsc. A new title is one line here and its two modules.
import * as opensky from "./opensky.js";
import * as aeroplanes from "./aeroplanes.js";
import * as blueskies from "./blueskies.js";
import * as openskyBoard from "../boards/opensky.js";
import * as aeroplanesBoard from "../boards/aeroplanes.js";
import * as blueskiesBoard from "../boards/blueskies.js";

/** @typedef {import("../types.js").GameModule} GameModule */

/** @type {Record<string, GameModule>} */
export const GAMES = {
  opensky: { presenter: opensky, board: openskyBoard },
  aeroplanes: { presenter: aeroplanes, board: aeroplanesBoard },
  blueskies: { presenter: blueskies, board: blueskiesBoard },
};

/** The registered game `key`, or null for a title this client does not know. @param {string | null | undefined} key */
export const gameModule = (key) => (key && Object.hasOwn(GAMES, key) ? GAMES[key] : null);
