/**
 * The client against a running platform (tests/sdk/test_generated_clients.py starts it, as the Python SDK's tests
 * do, and passes its addresses): whole games of every title while following the stream, idempotent submissions,
 * typed refusals, the account stream resumed with Last-Event-ID, real 429s waited out as Retry-After says, and
 * two copies of the example bot meeting through the matchmaker.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

import {
  type GameStreamEvent, InvalidRequest, RateLimited, SkyboardClient, StaleVersion, Unauthenticated,
} from "../src/index.js";

const URL_ = process.env.SKYBOARD_URL;
const LIMITED_URL = process.env.SKYBOARD_LIMITED_URL; // 3 calls per credential per 1 s window
const HOURLY_URL = process.env.SKYBOARD_HOURLY_URL; // 3 calls per credential per hour
if (!URL_ || !LIMITED_URL || !HOURLY_URL) {
  throw new Error("SKYBOARD_URL, SKYBOARD_LIMITED_URL and SKYBOARD_HOURLY_URL: run through tests/sdk/test_generated_clients.py");
}
const url: string = URL_;

const pick = <V>(items: readonly V[]): V => items[Math.floor(Math.random() * items.length)]!;

async function account(name: string): Promise<SkyboardClient> {
  const sky = new SkyboardClient({ baseUrl: url });
  await sky.createPlayer({ name, kind: "bot" });
  return sky;
}

for (const [title, players] of [["aeroplanes", 3], ["blueskies", 2], ["opensky", 2]] as const) {
  test(`a whole ${title} game, every seat by random legal moves, while its stream is followed`, async () => {
    const sky = await account(`ts-${title}`);
    const made = await sky.createGame({ game: title, players, seed: 3 });
    const tokens = new Map(made.seats.flatMap((s) => (s.token ? [[s.seat, s.token] as const] : [])));
    const followed: GameStreamEvent[] = [];
    const following = (async () => { for await (const e of sky.events(made.game_id, { token: tokens.get(1)! })) followed.push(e); })();
    let game = await sky.game(made.game_id, tokens.get(0));
    assert.equal(game.game, title); // the discriminator: `game.view` is this title's view type from here on
    let moves = 0;
    while (game.status === "active") {
      const token = tokens.get(pick(game.to_act))!;
      const legal = await sky.legalActions(made.game_id, token);
      const done = await sky.submit(made.game_id, token, pick(legal.actions), legal.version);
      assert.equal(done.version, legal.version + 1);
      assert.equal(done.replayed, false);
      moves++;
      game = await sky.game(made.game_id);
    }
    await following;
    assert.equal(game.status, "finished");
    assert.ok(moves > 0 && game.scores !== null);
    const states = followed.flatMap((e) => (e.event === "state" ? [e.data.version] : []));
    assert.deepEqual(states, Array.from({ length: game.version + 1 }, (_, i) => i));
    assert.equal(followed.at(-1)?.event, "end");
  });
}

test("a submission retried with its Idempotency-Key is applied once; typed refusals", async () => {
  const sky = await account("ts-idem");
  const made = await sky.createGame({ game: "opensky", players: 2, seed: 4 });
  const tokens = new Map(made.seats.map((s) => [s.seat, s.token ?? ""]));
  const game = await sky.game(made.game_id);
  const token = tokens.get(game.to_act[0]!)!;
  const legal = await sky.legalActions(made.game_id, token);
  const action = legal.actions[0]!;
  const first = await sky.submit(made.game_id, token, action, legal.version, "ts-key-1");
  const again = await sky.submit(made.game_id, token, action, legal.version, "ts-key-1");
  assert.equal(first.replayed, false);
  assert.equal(again.replayed, true);
  assert.equal(again.version, first.version);
  await assert.rejects(sky.submit(made.game_id, token, action, legal.version), (e) => e instanceof StaleVersion
    && e.currentVersion === first.version);
  const wrong = { type: "no_such_action" } as unknown as typeof action; // deliberately outside the schema
  await assert.rejects(sky.submit(made.game_id, token, wrong, first.version), InvalidRequest);
  await assert.rejects(sky.legalActions(made.game_id, "sbt_not-a-token"), Unauthenticated);
  await assert.rejects(new SkyboardClient({ baseUrl: url, apiKey: "sbk_revoked" }).me(), Unauthenticated);
});

test("the account stream: a challenge, its game start, resumed after the last event with Last-Event-ID", async () => {
  const ann = await account("ts-ann");
  const bob = await account("ts-bob");
  const bobId = (await bob.me()).player_id;
  const made = await ann.challenge({ to: bobId, game: "opensky", players: 2, rated: false });
  let challengeId: string | null = null;
  let lastEventId: string | undefined;
  // a new stream starts now (docs/decisions/accounts.md): the history, with the challenge sent before it opened, is asked for
  for await (const frame of bob.accountEvents({ signal: AbortSignal.timeout(20_000), replay: true })) {
    lastEventId = frame.id ?? undefined;
    if (frame.event === "challenge") { challengeId = frame.data.challenge.challenge_id; break; }
  }
  assert.equal(challengeId, made.challenge_id);
  const accepted = await bob.accept(made.challenge_id);
  const after: string[] = [];
  for await (const frame of bob.accountEvents({ signal: AbortSignal.timeout(20_000), ...(lastEventId === undefined ? {} : { lastEventId }) })) {
    after.push(frame.event);
    assert.notEqual(frame.id, lastEventId, "an event before Last-Event-ID came again");
    if (frame.event === "challenge_closed" || frame.event === "game_start") break;
  }
  assert.ok(after.length > 0 && !after.includes("challenge"), after.join());
  let started = false;
  // starting now, the ongoing game is announced first, with the challenger's seat token not yet delivered
  for await (const frame of ann.accountEvents({ signal: AbortSignal.timeout(20_000) })) {
    if (frame.event === "game_start") {
      assert.equal(frame.data.game_id, accepted.game_id);
      assert.ok(frame.data.token);
      assert.equal(frame.data.ongoing, true);
      started = true;
      break;
    }
  }
  assert.ok(started, "no game_start on the challenger's stream");
  const mine = await bob.myGames();
  assert.deepEqual(mine.games.map((g) => g.game_id), [accepted.game_id]);
  const legal = await bob.legalActions(accepted.game_id); // no token: the API key plays bob's seat
  assert.equal(legal.seat, accepted.seat);
});

test("real 429s are waited out as Retry-After says", async () => {
  const sky = new SkyboardClient({ baseUrl: LIMITED_URL });
  await sky.createPlayer({ name: "ts-hasty" });
  const started = Date.now();
  // 7 calls at 3 per window span three windows wherever the windows fall, so a whole one was waited out
  for (let i = 0; i < 7; i++) await sky.me();
  assert.ok(Date.now() - started >= 900, "a full budget was waited out at least once");
});

test("a real 429 is thrown as RateLimited when the policy allows no retry", async () => {
  // the windows are aligned to the clock: a burst may straddle a boundary and get two budgets (3 + 3), and on a
  // 1 s window a slow one may span three; 7 calls at 3 per hour span at most two windows, so one is refused
  const sky = new SkyboardClient({ baseUrl: HOURLY_URL });
  await sky.createPlayer({ name: "ts-impatient" });
  const impatient = new SkyboardClient({ baseUrl: HOURLY_URL, apiKey: sky.apiKey, retry: { attempts: 1 } });
  await assert.rejects(async () => { for (let i = 0; i < 7; i++) await impatient.me(); },
    (e) => e instanceof RateLimited && e.code === "rate_limited" && e.retryAfter !== null);
});

test("two copies of the example bot meet through the matchmaker and play a rated game to its end", async () => {
  const bot = fileURLToPath(new URL("../examples/random_bot.js", import.meta.url));
  const keyed = await account("ts-keyed-bot");
  const run = (env: Record<string, string>): Promise<string> => new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bot], { env: { ...process.env, SKYBOARD_URL: url, GAME: "opensky", ...env } });
    let out = "";
    child.stdout.on("data", (d: Buffer) => { out += d.toString(); });
    child.stderr.on("data", (d: Buffer) => { out += d.toString(); });
    const timer = setTimeout(() => child.kill(), 60_000);
    child.on("close", (code) => { clearTimeout(timer); if (code === 0) resolve(out); else reject(new Error(out)); });
  });
  const outputs = await Promise.all([run({ SKYBOARD_API_KEY: keyed.apiKey! }), run({ BOT_NAME: "ts-fresh-bot" })]);
  const games = new Set(outputs.map((out) => /matched (\S+) seat/.exec(out)?.[1]));
  assert.equal(games.size, 1, outputs.join("\n"));
  assert.ok(outputs.every((out) => out.includes("game over: scores")), outputs.join("\n"));
  const [gameId] = [...games];
  const final = await keyed.game(gameId!);
  assert.equal(final.status, "finished");
});
