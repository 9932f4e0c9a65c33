// @ts-check
// The action picker: every legal action from /actions as a button in the rulebook's words (grouped by kind;
// a list box with a Play button when a kind has many; a kind the game ranks, easiest first with the rest behind
// "more"), optionally narrowed to the actions naming a board element. The words come from the caller's `describe`
// (the catalogue through the game's presentation module).
import { h } from "./dom.js";
import { ui } from "./i18n.js";

const MAX_BUTTONS = 40;
/** A ranked kind shows this many of its easiest choices; the rest open under "more" (Aeroplanes' 37-43 routes were a
 * 4,540 px column of buttons, or a list box cutting their words off on a phone). */
const FIRST_RANKED = 5;

/**
 * The board element names an action mentions: its string values (airport codes, routes, destinations),
 * strings in lists, and "field:number" for numbers (e.g. "card:7" for an aircraft card on display).
 * @param {Action} action @returns {Set<string>}
 */
export function refsOf(action) {
  const refs = new Set();
  for (const [k, v] of Object.entries(action)) {
    if (k === "type") continue;
    if (typeof v === "string") refs.add(v);
    else if (typeof v === "number") refs.add(`${k}:${v}`);
    else if (Array.isArray(v)) v.filter((x) => typeof x === "string").forEach((x) => refs.add(x));
  }
  return refs;
}

/**
 * What the picker says of an action: its label, a second line, a tooltip (the rule), the group of its type.
 * @typedef {object} Describe
 * @property {(a: Action) => string} label
 * @property {(a: Action) => string | null} hint
 * @property {(a: Action) => string | null} tooltip
 * @property {(type: string) => string} group
 * @property {(a: Action) => string | null} choiceGroup  a heading among a long list's choices (a region), or none
 * @property {(a: Action) => number | null} rank  its place among its kind's choices, lower first (null: unranked)
 * @property {(a: Action | null) => void} preview  show what a choice pointed at does (on the board), or nothing
 * @property {(a: Action) => string} [search]  more words a long list's filter finds the choice by: the names, in the
 *   page's language, of the places it names ("Лондон" finds LHR–CDG)
 */
/** @typedef {import("./types.js").Action} Action */

/** @type {Describe} */
const plain = { label: (a) => a.type, hint: () => null, tooltip: () => null, group: (t) => t, choiceGroup: () => null,
  rank: () => null, preview: () => {} };

/**
 * Render the picker into `root`; `play(action)` submits one; `filterRefs` (a list of board refs, or null) keeps
 * the actions naming any of them; `describe` gives label, hint, tooltip, group.
 * @param {HTMLElement} root @param {Action[]} actions @param {(a: Action) => void} play
 * @param {string[] | null} [filterRefs] @param {Describe} [describe]
 */
export function renderPicker(root, actions, play, filterRefs = null, describe = plain) {
  const shown = filterRefs ? actions.filter((a) => { const r = refsOf(a); return filterRefs.some((x) => r.has(x)); }) : actions;
  if (!shown.length) {
    root.replaceChildren(h("p", { class: "muted" }, ui(actions.length ? "no_action_names" : "nothing_to_do")));
    return;
  }
  /** @type {Map<string, Action[]>} */
  const groups = new Map();
  for (const a of shown) {
    const g = describe.group(a.type);
    groups.set(g, [...(groups.get(g) || []), a]);
  }
  const button = (/** @type {Action} */ a) => {
    const hint = describe.hint(a);
    const show = () => describe.preview(a);
    const hide = () => describe.preview(null);
    return h("button", { type: "button", class: "action", "data-type": a.type, title: describe.tooltip(a), onclick: () => play(a),
      onmouseenter: show, onfocus: show, onmouseleave: hide, onblur: hide }, describe.label(a), hint ? h("span", { class: "hint" }, hint) : null);
  };
  root.replaceChildren(...[...groups].map(([group, list], gi) => {
    const legend = h("legend", {}, list.length > 1 ? ui("group_count", { group, n: list.length }) : group);
    const ranks = list.map((a) => describe.rank(a));
    if (list.length > 1 && ranks.every((r) => r !== null)) {
      const order = list.map((a, i) => ({ a, r: /** @type {number} */ (ranks[i]), i })).sort((x, y) => x.r - y.r || x.i - y.i).map((x) => x.a);
      const rest = order.slice(FIRST_RANKED);
      return h("fieldset", { class: "action-group ranked" }, legend, order.slice(0, FIRST_RANKED).map(button),
        rest.length ? h("details", { class: "more-choices" }, h("summary", {}, ui("more_choices", { n: rest.length })),
          h("div", { class: "action-group" }, rest.map(button))) : null);
    }
    if (list.length <= MAX_BUTTONS) return h("fieldset", { class: "action-group" }, legend, list.map(button));
    return longList(group, list, gi, play, describe, legend);
  }));
}

/**
 * A kind with more choices than buttons fit (an Aeroplanes tile can go to 50-60 places): a list box of them under
 * headings (the game's choiceGroup, e.g. the region), and a filter that keeps the choices containing what is typed
 * (docs/decisions/webclient-trial.md, item 6). The Play button plays the selected choice.
 * @param {string} group @param {Action[]} list @param {number} gi @param {(a: Action) => void} play
 * @param {Describe} describe @param {HTMLElement} legend
 */
function longList(group, list, gi, play, describe, legend) {
  const id = `action-select-${gi}`;
  const text = (/** @type {Action} */ a) => { const hint = describe.hint(a); return hint ? `${describe.label(a)} — ${hint}` : describe.label(a); };
  /** @type {Map<string, HTMLOptionElement[]>} */
  const headed = new Map();
  const options = list.map((a, i) => {
    const option = /** @type {HTMLOptionElement} */ (h("option", { value: i, selected: i === 0,
      "data-search": `${text(a)} ${describe.search?.(a) || ""}`.toLocaleLowerCase() }, text(a)));
    const heading = describe.choiceGroup(a) || "";
    headed.set(heading, [...(headed.get(heading) || []), option]);
    return option;
  });
  const select = /** @type {HTMLSelectElement} */ (h("select", { id, size: 8, class: "action-select" },
    headed.size > 1 ? [...headed].map(([heading, opts]) => (heading ? h("optgroup", { label: heading }, opts) : opts)) : options));
  const play1 = /** @type {HTMLButtonElement} */ (h("button", { type: "button", class: "action play-selected", "data-type": list[0].type,
    title: describe.tooltip(list[0]), onclick: () => { if (select.value !== "") play(list[Number(select.value)]); } },
  ui("play_selected", { group: group.toLowerCase() })));
  const filter = /** @type {HTMLInputElement} */ (h("input", { type: "search", id: `${id}-filter`, class: "choice-filter",
    placeholder: ui("filter_choices"), "aria-controls": id, autocomplete: "off" }));
  filter.addEventListener("input", () => {
    const wanted = filter.value.trim().toLocaleLowerCase();
    let first = null;
    for (const option of options) {
      option.hidden = !!wanted && !(option.dataset.search || option.text.toLocaleLowerCase()).includes(wanted);
      if (!option.hidden && !first) first = option;
    }
    select.querySelectorAll("optgroup").forEach((g) => { g.hidden = ![...g.children].some((o) => !(/** @type {HTMLOptionElement} */ (o)).hidden); });
    select.value = first ? first.value : "";
    play1.disabled = !first;
  });
  return h("fieldset", { class: "action-group long-list" }, legend,
    h("label", { for: `${id}-filter`, class: "sr-only" }, ui("filter_label", { group })), filter,
    h("label", { for: id, class: "sr-only" }, ui("choose_group", { group })), select, play1);
}
