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

/** Each title's modules, checked against the interface over that title's own view.
 * @type {{opensky: import("../types.js").GameModule<import("../types.js").OpenskyView>,
 *   aeroplanes: import("../types.js").GameModule<import("../types.js").AeroplanesView>,
 *   blueskies: import("../types.js").GameModule<import("../types.js").BlueskiesView>}} */
export const GAMES = {
  opensky: { presenter: opensky, board: openskyBoard },
  aeroplanes: { presenter: aeroplanes, board: aeroplanesBoard },
  blueskies: { presenter: blueskies, board: blueskiesBoard },
};

/** The registered game `key`, or null for a title this client does not know: the page hands a presenter and a board
 * only views of their title (a game's `game` field is the key), which is what the widening to `any` leaves unchecked.
 * @param {string | null | undefined} key @returns {GameModule | null} */
export const gameModule = (key) =>
  (key && Object.hasOwn(GAMES, key) ? /** @type {Record<string, import("../types.js").GameModule<any>>} */ (GAMES)[key] : null);
