// Message formatting (services/webclient/static/js/i18n.js) with the real catalogues: ICU plural categories of each
// language (Russian and Polish have few/many), numbers and money through Intl, `{field|formatter}` arguments, and
// the English the web client trial (docs/decisions/webclient-trial.md) found wrong ("1 notes left", "share the win the market").
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { fill, joinAnd, money, number, say, tr, ui, useCatalogue } from "../../../services/webclient/static/js/i18n.js";

const CATALOGUES = new URL("../../../services/webclient/static/i18n/", import.meta.url);
const load = (lang) => JSON.parse(readFileSync(new URL(`${lang}.json`, CATALOGUES), "utf8"));
const ctx = { name: (seat) => ["Ann", "Bob", "Cy"][seat], data: null, view: {}, me: 0, game: "blueskies" };

test("plural categories: English one/other, Russian and Polish one/few/many", () => {
  const cards = { en: ["1 card", "2 cards", "5 cards", "22 cards"], ru: ["1 карта", "2 карты", "5 карт", "22 карты"],
    pl: ["1 karta", "2 karty", "5 kart", "22 karty"], it: ["1 carta", "2 carte", "5 carte", "22 carte"] };
  for (const [lang, want] of Object.entries(cards)) {
    useCatalogue(load(lang), lang);
    assert.deepEqual([1, 2, 5, 22].map((n) => tr("blueskies", "text", "deck_cards", { n })), want, lang);
  }
});

test("the English the trial found: 'no notes left', '1 note left', 'wins the market' for one winner", () => {
  useCatalogue(load("en"), "en");
  const subsidy = (left) => say("aeroplanes", "event", { type: "subsidy", seat: 1, money: 3, notes_left: left }, null, ctx);
  assert.equal(subsidy(1), "Bob took a £3 subsidy (1 note left)");
  assert.equal(subsidy(0), "Bob took a £3 subsidy (no notes left)");
  assert.equal(subsidy(4), "Bob took a £3 subsidy (4 notes left)");
  const pres = { formatters: { winners: (v, o, c) => joinAnd(v.map(c.name)) }, variant: () => null };
  const won = (winners) => say("opensky", "event", { type: "market_won", winners }, pres, ctx);
  assert.equal(won([0]), "Ann wins the market");
  assert.equal(won([0, 2]), "Ann and Cy share the market");
});

test("numbers and money as each language writes them (Intl)", () => {
  useCatalogue(load("en"), "en");
  assert.equal(number(1250.5), "1,250.5");
  assert.equal(money(12), "£12");
  useCatalogue(load("ru"), "ru");
  assert.equal(number(1250.5), "1\u00a0250,5");
  useCatalogue(load("pl"), "pl");
  assert.equal(number(1250.5, 2), "1250,50");
  useCatalogue(load("it"), "it");
  assert.match(money(12), /^12\s£$/);
});

test("a missing field shows as a dash, a list is joined in words, a formatter's result is the argument", () => {
  useCatalogue(load("en"), "en");
  assert.equal(fill("{a} and {b}", { a: 1 }), "1 and —");
  assert.equal(fill("{xs}", { xs: ["A", "B", "C"] }), "A, B and C");
  assert.equal(fill("{seat|player} has {cards|count, plural, one {# card} other {# cards}}", { seat: 2, cards: ["x"] }, {}, ctx),
    "Cy has 1 card");
  assert.equal(ui("no_such_key_at_all"), "no_such_key_at_all");
});

test("rule ids leave the words for the tooltip (docs/decisions/webclient-trial.md, item 9), whatever the language", async () => {
  const { splitRules } = await import("../../../services/webclient/static/js/rules.js");
  const cases = [
    ["Setup: add up to 2 gates with a budget of 6; unspent budget is lost (BS-7.6).", "Setup: add up to 2 gates with a budget of 6; unspent budget is lost.", ["BS-7.6"]],
    ["Sole winner: add 0–3 ancillary fees of 100 each; any fee means a price-die check (OS-14, OS-15).", "Sole winner: add 0–3 ancillary fees of 100 each; any fee means a price-die check.", ["OS-14", "OS-15"]],
    ["You cannot fly this market this month (no valid itinerary, OS-9).", "You cannot fly this market this month (no valid itinerary).", ["OS-9"]],
    ["Money left (tie-break, AE-15.2)", "Money left (tie-break)", ["AE-15.2"]],
    ["Majorities (AE-13.2): Europe 4.", "Majorities: Europe 4.", ["AE-13.2"]],
    ["The price die (200–700) must reach your fare + 300", "The price die (200–700) must reach your fare + 300", []],
    ["Подготовка: добавьте до 2 гейтов (BS-7.6).", "Подготовка: добавьте до 2 гейтов.", ["BS-7.6"]],
  ];
  for (const [text, words, rules] of cases) assert.deepEqual(splitRules(text), { text: words, rules }, text);
});

test("an era's scoring line names each market's and the profit's VP per player, not only the totals (AE-13)", async () => {
  const aeroplanes = await import("../../../services/webclient/static/js/games/aeroplanes.js");
  const event = { type: "era_scoring", era: 1, profits: [4, 0], vp: [9, 2],
    awards: { Europe: [4, 2], Africa: [0, 0], AsiaAustralasia: [0, 0], profit: [5, 0] } };
  useCatalogue(load("en"), "en");
  assert.equal(say("aeroplanes", "event", event, aeroplanes, ctx),
    "Era 1 scoring — Europe: Ann 4, Bob 2; profit: Ann 5. VP: Ann 9, Bob 2; profits Ann 4, Bob 0");
  useCatalogue(load("ru"), "ru");
  assert.match(say("aeroplanes", "event", event, aeroplanes, ctx), /^Подсчёт в конце эры 1 — Европа: Ann 4, Bob 2; прибыль: Ann 5\./);
});

test("a start city's choice says its era 1 income, with the modifier printed beside it (AE-5.2, AE-16.3)", async () => {
  const aeroplanes = await import("../../../services/webclient/static/js/games/aeroplanes.js");
  const board = JSON.parse(readFileSync(new URL("../../../engine/aeroplanes/data/board.json", import.meta.url), "utf8"));
  const withData = { ...ctx, data: { board } };
  useCatalogue(load("en"), "en");
  const income = (city) => aeroplanes.hint({ type: "choose_home", city }, withData);
  assert.equal(income("paris"), "Era 1 income: £11");  // the rule (AE-5.2) is no word of it
  assert.equal(income("berlin"), "Era 1 income: £14");  // the rule (AE-5.2) is no word of it
  assert.equal(income("amsterdam"), "Era 1 income: £12");  // the rule (AE-5.2) is no word of it
});
