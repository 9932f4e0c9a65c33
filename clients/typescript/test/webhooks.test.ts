/**
 * The webhook verifier against a signature the platform's own signer made (services/webhooks/signing.py, a second
 * implementation of the Standard Webhooks algorithm): the two agree, and every way a delivery is not ours is refused.
 */
import assert from "node:assert/strict";
import { test } from "node:test";

import { signWebhook, verifyWebhook, WebhookVerificationError } from "../src/index.js";

const SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
const BODY = '{"type":"your_turn","timestamp":"2026-01-01T00:00:00.000Z","data":{"game_id":"g","seat":1,"version":3,"deadline":null}}';
// python -c "from services.webhooks.signing import sign; print(sign(SECRET, 'msg_1767225600000-0', 1767225601, BODY))"
const SERVER_SIGNATURE = "v1,opMDhPiT23FzBB7id0dbqAuLc34dA00zmMg8dEPCwzg=";
const HEADERS = { "webhook-id": "msg_1767225600000-0", "webhook-timestamp": "1767225601",
  "webhook-signature": SERVER_SIGNATURE };

test("a delivery the platform signed verifies, and its message is typed", () => {
  assert.equal(signWebhook(SECRET, "msg_1767225600000-0", 1767225601, BODY), SERVER_SIGNATURE);
  const message = verifyWebhook(SECRET, HEADERS, BODY, { nowS: 1767225601 });
  assert.equal(message.id, "msg_1767225600000-0");
  assert.equal(message.type, "your_turn");
  assert.equal(message.data["version"], 3);
  const fetchHeaders = new Headers(HEADERS);
  assert.equal(verifyWebhook(SECRET, fetchHeaders, new TextEncoder().encode(BODY), { nowS: 1767225700 }).type,
    "your_turn");
});

test("during a rotation either secret's signature passes", () => {
  const other = "whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oDAAAAAAAAAAA=";
  const both = { ...HEADERS, "webhook-signature": `${signWebhook(other, HEADERS["webhook-id"], 1767225601, BODY)} ${SERVER_SIGNATURE}` };
  assert.equal(verifyWebhook(SECRET, both, BODY, { nowS: 1767225601 }).type, "your_turn");
  assert.equal(verifyWebhook(other, both, BODY, { nowS: 1767225601 }).type, "your_turn");
});

test("a changed body, another secret, an old timestamp or a missing header are refused", () => {
  const refused = (fn: () => unknown) => assert.throws(fn, WebhookVerificationError);
  refused(() => verifyWebhook(SECRET, HEADERS, BODY.replace("3", "4"), { nowS: 1767225601 }));
  refused(() => verifyWebhook("whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD", HEADERS, BODY, { nowS: 1767225601 }));
  refused(() => verifyWebhook(SECRET, HEADERS, BODY, { nowS: 1767225601 + 301 }));
  refused(() => verifyWebhook(SECRET, { ...HEADERS, "webhook-id": "msg_other" }, BODY, { nowS: 1767225601 }));
  refused(() => verifyWebhook(SECRET, { "webhook-id": "x", "webhook-timestamp": "1767225601" }, BODY, { nowS: 1767225601 }));
});
