// @ts-check
// The client's shared types (JSDoc, checked by tsc --noEmit: services/webclient/tsconfig.json). The gateway's
// answers are typed from the TypeScript SDK's types generated from the OpenAPI (clients/typescript/src/schema.ts,
// `make sdk-generate`: one generation serves both);
// what the client adds on top (a game's presenter and board, the page's context) is written here once, so every
// game implements the same interface and the game page calls it without asking which hooks a game has.

/** @typedef {import("../../../../clients/typescript/src/schema").components["schemas"]} Schemas */
/** @typedef {Schemas["GameOut"]} Game  GET /v1/games/{id} */
/** @typedef {Schemas["AeroplanesView"]} AeroplanesView  what a seat of each title sees, as its engine declares it */
/** @typedef {Schemas["BlueskiesView"]} BlueskiesView */
/** @typedef {Schemas["OpenskyView"]} OpenskyView */
/** @typedef {Game["view"]} View  any title's view (the page's); each title's presenter and board read their own */
/** @typedef {{type: string, [field: string]: any}} Action  one legal action, as /actions lists it */
/** @typedef {{type: string, seat?: number, visible_to?: number[], [field: string]: any}} GameEvent  one log event */
/** @typedef {Record<string, any>} BoardData  /webclient/boards/{game}: the printed board (map, cards, tiles) */
/** @typedef {{seat: number, token: string | null, bot?: string | null}} SeatToken  a seat this browser holds */

/**
 * What a presenter's and a board's words and drawings need of the page (`V`: the view, a title's own in its
 * presenter and board).
 * @template [V=View]
 * @typedef {object} Ctx
 * @property {string} game
 * @property {V} view
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
 * A game in the rulebook's words (games/<game>.js): every member is required, so the page never guesses. `V`: the
 * title's view.
 * @template [V=View]
 * @typedef {object} Presenter
 * @property {Record<string, (v: any, obj: any, ctx: Ctx<V>) => string>} formatters  `{field|name}` of the catalogue
 * @property {(kind: "action" | "event", obj: any, ctx: Ctx<V>) => string | null} variant  an alternative wording's key
 * @property {(view: V, seat: number) => number} score
 * @property {(view: V, seat: number, ctx: Ctx<V>) => [string, string | number][]} seatStats  a player card's key numbers
 * @property {(view: V, ctx: Ctx<V>) => [string, string | number][]} tableInfo  "On the table"; its first pair heads the status bar
 * @property {(view: V, seat: number, ctx: Ctx<V>) => (Node | null)[]} myPanel
 * @property {(view: V, seat: number | null, ctx: Ctx<V>) => string | null} actionNote  a line above the actions
 * @property {(ev: GameEvent) => boolean} isChance  dice, reveals: shown in the chance panel
 * @property {() => string | null} chanceHeading  the chance panel's heading in the title's words (null: ui.chance,
 *   "Dice and reveals"; a title without dice says what it draws instead)
 * @property {(view: V, ctx: Ctx<V>, events: GameEvent[] | null) => FinalTable} final
 * @property {(view: V, ctx: Ctx<V>) => Node | null} finalExtra  a table under the end screen's
 * @property {Record<string, string>} RULE_OF  action type -> rule id (the tooltip's)
 * @property {(action: Action, ctx: Ctx<V>) => string | null} hint  an action button's second line
 * @property {(action: Action, ctx: Ctx<V>) => string | null} choiceGroup  its heading in a long list of choices
 * @property {(action: Action, ctx: Ctx<V>) => number | null} rank  where a choice goes among its kind's, easiest first
 *   (lower first; null: the engine's order), e.g. Aeroplanes' routes by the rolls they need
 * @property {(action: Action, ctx: Ctx<V>) => string[]} previewRefs  board elements the map shows while a choice is
 *   pointed at or waits for its confirmation, beyond those it names (a route's connections)
 * @property {string[]} PLAY_WHEN_ONLY  action types the page plays for the player when it is the only legal action
 * @property {(ref: string, ctx: Ctx<V>) => string} refLabel  a board element in words
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
 * A game's board (boards/<game>.js): an SVG (first) and any HTML beside it. `V`: the title's view.
 * @template [V=View]
 * @typedef {object} Board
 * @property {(view: V, data: BoardData, pick: Pick, ctx: Ctx<V>) => [SVGSVGElement, ...HTMLElement[]]} draw
 * @property {string[]} drawnKeys  the view's keys the board draws (tests/webclient/test_catalogue.py)
 */

/**
 * One registered game: its presenter and board, both reading the title's view `V`.
 * @template [V=View]
 * @typedef {{presenter: Presenter<V>, board: Board<V>}} GameModule
 */

export {};
