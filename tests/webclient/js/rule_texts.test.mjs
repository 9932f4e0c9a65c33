// What the Aeroplanes texts say matches what the engine does, in every language (the numbers of every log line are
// checked against the events by tests/webclient/test_log_numbers.py; these are the words numbers cannot show):
// Engine Maintenance discards all engine failures (AE-11.3), the failures a log line counts are the ones held, not
// "this action's" (AE-8.14: they are kept between actions), an abort is the player giving up (AE-8.15), and a
// waiting passenger needs an airport at its section's start city too (AE-9.2).
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { say, useCatalogue } from "../../../services/webclient/static/js/i18n.js";
import * as aeroplanes from "../../../services/webclient/static/js/games/aeroplanes.js";

const CATALOGUES = new URL("../../../services/webclient/static/i18n/", import.meta.url);
const load = (lang) => JSON.parse(readFileSync(new URL(`${lang}.json`, CATALOGUES), "utf8"));
const ctx = { name: (seat) => ["Ann", "Bob", "Cy"][seat], data: { aircraft: { cards: [{ number: 7, name: "Fokker F.VII" }] } }, view: {}, me: 0, game: "aeroplanes" };
const LANGS = ["en", "ru", "it", "pl"];
const line = (ev) => say("aeroplanes", "event", ev, aeroplanes, ctx);
const rule = (cat, id) => Object.fromEntries(cat.aeroplanes.rules)[id];

test("Engine Maintenance discards every engine failure, in every language (AE-11.3)", () => {
  const all = { en: /discard all your engine failures/, ru: /сбросить все тайлы Отказа Двигателя/,
    it: /scarta tutti i tuoi Guasti al Motore/, pl: /odrzuć wszystkie swoje Awarie Silnika/ };
  for (const lang of LANGS) {
    useCatalogue(load(lang), lang);
    assert.match(say("aeroplanes", "action", { type: "engine_maintenance" }, aeroplanes, ctx), all[lang], lang);
  }
  useCatalogue(load("en"), "en");
  assert.equal(line({ type: "engine_maintenance", seat: 1, discarded: 3 }), "Bob used Engine Maintenance: 3 engine failures discarded");
  assert.equal(line({ type: "engine_maintenance", seat: 1, discarded: 0 }), "Bob used Engine Maintenance: no engine failure to discard");
});

test("an engine-failure line counts the failures held, which outlast the action (AE-8.14)", () => {
  const perAction = /this action|за это действие|in questa azione|w tej akcji/;
  for (const lang of LANGS) {
    useCatalogue(load(lang), lang);
    const text = line({ type: "engine_failures", seat: 0, new: 1, total: 3 });
    assert.doesNotMatch(text, perAction, lang);
    assert.match(text, /\b3\b/, lang);
  }
  useCatalogue(load("en"), "en");
  assert.equal(line({ type: "engine_failures", seat: 0, new: 1, total: 3 }), "Ann: 1 engine failure (3 held in all)");
});

test("an abort between rolls reads as the player giving up, not as a failed roll (AE-8.15)", () => {
  const failed = /failed|не удалась|fallito|nie powiodła/;
  for (const lang of LANGS) {
    useCatalogue(load(lang), lang);
    assert.doesNotMatch(line({ type: "attempt_failed", seat: 2, card: 7 }), failed, lang);
  }
  useCatalogue(load("en"), "en");
  assert.equal(line({ type: "attempt_failed", seat: 2, card: 7 }), "Cy gave up the attempt with Fokker F.VII; the tile returns to its card");
});

test("the AE-9 summary names the origin airport as well as the destination", () => {
  const origin = { en: /start city of its section/, ru: /стартовом городе его ячейки/, it: /città di partenza della sua sezione/,
    pl: /mieście startowym jego sekcji/ };
  for (const lang of LANGS) assert.match(rule(load(lang), "AE-9"), origin[lang], lang);
});
