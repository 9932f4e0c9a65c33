// @ts-check
// The client's shared types (JSDoc, checked by tsc --noEmit: services/webclient/tsconfig.json). The gateway's
// answers are typed from the TypeScript SDK's types generated from the OpenAPI (clients/typescript/src/schema.ts,
// `make sdk-generate`: one generation serves both);
// what the client adds on top (a game's presenter and board, the page's context) is written here once, so every
// game implements the same interface and the game page calls it without asking which hooks a game has.

/** @typedef {import("../../../../clients/typescript/src/schema").components["schemas"]} Schemas */
/** @typedef {Schemas["GameOut"]} Game  GET /v1/games/{id} */
/** @typedef {Record<string, any>} View  a game's view (each game's own shape: its presenter reads it) */
/** @typedef {{type: string, [field: string]: any}} Action  one legal action, as /actions lists it */
/** @typedef {{type: string, seat?: number, visible_to?: number[], [field: string]: any}} GameEvent  one log event */
/** @typedef {Record<string, any>} BoardData  /webclient/boards/{game}: the printed board (map, cards, tiles) */
/** @typedef {{seat: number, token: string | null, bot?: string | null}} SeatToken  a seat this browser holds */

/**
 * What a presenter's and a board's words and drawings need of the page.
 * @typedef {object} Ctx
 * @property {string} game
 * @property {View} view
 * @property {BoardData | null} data
 * @property {(seat: number | null | undefined) => string} name  a seat's player name
 * @property {number | null} me  the seat I act as (null: a spectator)
 */

/**
 * One cell of the end screen: a value (null while unknown), its sub-line and its tooltip.
 * @typedef {{value: number | null, detail?: string | null, note?: string | null} | null} FinalValue
 */

/**
 * The end screen's score categories of a game; they add up to the score (the page shows any difference as "Other").
 * @typedef {object} FinalTable
 * @property {{key: string, label: string}[]} categories
 * @property {(seat: number) => FinalValue[]} values
 * @property {(seat: number) => number} total
 * @property {{key: string, label: string, value: (seat: number) => number, text: (seat: number) => string} | null} tiebreak
 */

/**
 * A game in the rulebook's words (games/<game>.js): every member is required, so the page never guesses.
 * @typedef {object} Presenter
 * @property {Record<string, (v: any, obj: any, ctx: Ctx) => string>} formatters  `{field|name}` of the catalogue
 * @property {(kind: "action" | "event", obj: any, ctx: Ctx) => string | null} variant  an alternative wording's key
 * @property {(view: View, seat: number) => number} score
 * @property {(view: View, seat: number, ctx: Ctx) => [string, string | number][]} seatStats  a player card's key numbers
 * @property {(view: View, ctx: Ctx) => [string, string | number][]} tableInfo  "On the table"; its first pair heads the status bar
 * @property {(view: View, seat: number, ctx: Ctx) => (Node | null)[]} myPanel
 * @property {(view: View, seat: number | null, ctx: Ctx) => string | null} actionNote  a line above the actions
 * @property {(ev: GameEvent) => boolean} isChance  dice, reveals: shown in "Dice and reveals"
 * @property {(view: View, ctx: Ctx, events: GameEvent[] | null) => FinalTable} final
 * @property {(view: View, ctx: Ctx) => Node | null} finalExtra  a table under the end screen's
 * @property {Record<string, string>} RULE_OF  action type -> rule id (the tooltip's)
 * @property {(action: Action, ctx: Ctx) => string | null} hint  an action button's second line
 * @property {(action: Action, ctx: Ctx) => string | null} choiceGroup  its heading in a long list of choices
 * @property {(ref: string, ctx: Ctx) => string} refLabel  a board element in words
 * @property {(ev: GameEvent) => string[]} refsOfEvent  the board elements an event names
 */

/**
 * Board choices handed to a board's draw(): the refs legal actions name, and what choosing one does.
 * @typedef {object} Pick
 * @property {Set<string>} refs
 * @property {(ref: string, event: MouseEvent | null) => void} onPick  event: the click (null from the keyboard)
 * @property {(ref: string) => string} label
 */

/**
 * A game's board (boards/<game>.js): an SVG (first) and any HTML beside it.
 * @typedef {object} Board
 * @property {(view: View, data: BoardData, pick: Pick, ctx: Ctx) => [SVGSVGElement, ...HTMLElement[]]} draw
 * @property {string[]} drawnKeys  the view's keys the board draws (tests/webclient/test_catalogue.py)
 */

/** @typedef {{presenter: Presenter, board: Board}} GameModule  one registered game */

export {};
