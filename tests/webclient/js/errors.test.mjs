// Errors as a player reads them (services/webclient/static/js/i18n.js errorText, api.js retryable) with the real
// catalogues: the catalogue's words for the code in every language, the wait the server asked for in words, the
// rule id and the server's English only in the detail; a quota or a long wait is thrown at once, never sat out.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { duration, errorText, useCatalogue } from "../../../services/webclient/static/js/i18n.js";
import { ApiError, MAX_SILENT_WAIT_S, retryable } from "../../../services/webclient/static/js/api.js";

const CATALOGUES = new URL("../../../services/webclient/static/i18n/", import.meta.url);
const load = (lang) => JSON.parse(readFileSync(new URL(`${lang}.json`, CATALOGUES), "utf8"));
const refusal = (code, retryAfter = null, status = 429) =>
  new ApiError(status, { error: { code, message: "at most 30 accounts per 600 s from one address", rule: null } }, retryAfter);

test("a wait in words, rounded up, with each language's plurals", () => {
  useCatalogue(load("en"), "en");
  assert.deepEqual([1, 45, 88.2, 90, 599, 3600, 5400, 7300].map(duration),
    ["1 second", "45 seconds", "89 seconds", "2 minutes", "10 minutes", "60 minutes", "1 hour 30 minutes",
      "2 hours 2 minutes"]);
  useCatalogue(load("ru"), "ru");
  assert.deepEqual([1, 3, 5, 21, 300, 7200].map(duration), ["1 секунду", "3 секунды", "5 секунд", "21 секунду", "5 минут", "2 часа"]);
  useCatalogue(load("pl"), "pl");
  assert.deepEqual([1, 2, 5, 240].map(duration), ["1 sekundę", "2 sekundy", "5 sekund", "4 minuty"]);
});

test("the sign-up refusal in the page's language with its wait; the server's English in the detail", () => {
  for (const lang of ["en", "ru", "it", "pl"]) {
    const cat = load(lang);
    useCatalogue(cat, lang);
    const said = errorText(refusal("too_many_accounts", "250"));
    assert.ok(said.text.startsWith(cat.ui.error_too_many_accounts), `${lang}: ${said.text}`);
    assert.ok(said.text.includes(duration(250)) && !said.text.includes("accounts per"), `${lang}: ${said.text}`);
    assert.match(said.detail, /accounts per 600 s/);
    assert.equal(errorText(refusal("too_many_accounts", "250"), 30).text.includes(duration(30)), true, "a countdown's time left");
  }
});

test("no rule id in the text: it is a detail", () => {
  useCatalogue(load("en"), "en");
  const err = new ApiError(422, { error: { code: "illegal_action", message: "you cannot bid now", rule: "OS-10" } });
  assert.deepEqual(errorText(err), { text: load("en").ui.error_illegal_action, detail: "you cannot bid now (OS-10)" });
});

test("retried in silence: a 503 and a short rate-limit wait; thrown at once: quotas and long waits", () => {
  assert.equal(retryable(refusal("rate_limited", "3")), true);
  assert.equal(retryable(refusal("unavailable", null, 503)), true);
  assert.equal(retryable(refusal("rate_limited", String(MAX_SILENT_WAIT_S + 1))), false);
  for (const code of ["too_many_accounts", "quota_exceeded", "too_many_streams", "too_many_challenges"]) {
    assert.equal(retryable(refusal(code, "2")), false, code);
  }
  assert.equal(retryable(refusal("illegal_action", null, 422)), false);
  assert.equal(refusal("too_many_accounts", "250").retryAfter, 250);
  assert.equal(refusal("too_many_accounts", "soon").retryAfter, null);
});
