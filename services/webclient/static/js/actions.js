// The generic action picker: every legal action from /actions, grouped by type, as buttons (or a list
// box with a Play button when a type has many), optionally narrowed to the actions naming a board element.
import { actionLabel, h, words } from "./dom.js";

const MAX_BUTTONS = 40;

/**
 * The board element names an action mentions: its string values (airport codes, routes, destinations),
 * strings in lists, and "field:number" for numbers (e.g. "card:7" for an aircraft card on display).
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

/** Render the picker into `root`; `play(action)` submits one. */
export function renderPicker(root, actions, play, filterRef = null) {
  const shown = filterRef ? actions.filter((a) => refsOf(a).has(filterRef)) : actions;
  const groups = new Map();
  for (const a of shown) groups.set(a.type, [...(groups.get(a.type) || []), a]);
  if (!shown.length) {
    root.replaceChildren(h("p", { class: "muted" }, actions.length ? "No action names that element." : "Nothing to do now."));
    return;
  }
  root.replaceChildren(...[...groups].map(([type, list], gi) => {
    const legend = h("legend", {}, `${words(type)} (${list.length})`);
    if (list.length <= MAX_BUTTONS) {
      return h("fieldset", { class: "action-group" }, legend, list.map((a) =>
        h("button", { type: "button", class: "action", "data-type": type, onclick: () => play(a) }, actionLabel(a))));
    }
    const id = `action-select-${gi}`;
    const select = h("select", { id, size: 8, class: "action-select" },
      list.map((a, i) => h("option", { value: i, selected: i === 0 }, actionLabel(a))));
    return h("fieldset", { class: "action-group" }, legend,
      h("label", { for: id, class: "sr-only" }, `Choose a ${words(type)} action`), select,
      h("button", { type: "button", class: "action play-selected", "data-type": type,
        onclick: () => play(list[Number(select.value || 0)]) }, `Play selected ${words(type)}`));
  }));
}
