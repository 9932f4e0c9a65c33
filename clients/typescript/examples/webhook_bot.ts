/**
 * A bot driven by webhooks: it holds no stream open, the platform calls it when it is its turn. It registers a
 * webhook for `your_turn` and `game_end`, starts a correspondence game against a platform bot, and answers each
 * verified delivery with a random legal move until the game ends.
 * SKYBOARD_URL, SKYBOARD_API_KEY (none: registers a bot account), GAME (opensky), LEVEL (greedy), PORT (8091),
 * WEBHOOK_URL (where the platform reaches PORT: https:// in production; http://127.0.0.1:PORT/ on `make run`).
 */
import { createServer } from "node:http";

import { SkyboardClient, StaleVersion, verifyWebhook, WebhookVerificationError } from "../src/index.js";

const env = (name: string, fallback: string): string => process.env[name] ?? fallback;
const sky = new SkyboardClient({ baseUrl: env("SKYBOARD_URL", "http://127.0.0.1:8000"), apiKey: process.env.SKYBOARD_API_KEY });
if (!sky.apiKey) await sky.createPlayer({ name: env("BOT_NAME", "ts-webhook-bot"), kind: "bot" });
const port = Number(env("PORT", "8091"));
const handled = new Set<string>(); // webhook-ids done: a retried or redelivered event carries the same id
let gameId: string | undefined;
let done: () => void;
const over = new Promise<void>((resolve) => { done = resolve; });

const server = createServer((request, response) => {
  const chunks: Buffer[] = [];
  request.on("data", (chunk: Buffer) => chunks.push(chunk));
  request.on("end", () => {
    let message;
    try {
      message = verifyWebhook(hook.secret, request.headers, Buffer.concat(chunks));
    } catch (error) {
      if (!(error instanceof WebhookVerificationError)) throw error;
      response.writeHead(401).end();
      return;
    }
    response.writeHead(204).end(); // acknowledged at once; the move is made after the answer
    if (gameId === undefined || handled.has(message.id) || message.data["game_id"] !== gameId) return;
    handled.add(message.id);
    if (message.type === "your_turn") void play(gameId);
    else if (message.type === "game_end") {
      console.log("game over: scores", JSON.stringify(message.data["scores"]), "winners", JSON.stringify(message.data["winners"]));
      done();
    }
  });
});
await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve)); // before the first delivery can come
const hook = await sky.createWebhook({ url: env("WEBHOOK_URL", `http://127.0.0.1:${port}/`), events: ["your_turn", "game_end"] });
gameId = (await sky.createGame({ game: env("GAME", "opensky"), players: 2, bots: { "1": env("LEVEL", "greedy") },
  time_control: { kind: "correspondence", days_per_decision: 1 } })).game_id;
console.log("game", gameId, "webhook", hook.webhook_id);

async function play(id: string): Promise<void> {
  for (let legal = await sky.legalActions(id); legal.actions.length; legal = await sky.legalActions(id)) {
    const action = legal.actions[Math.floor(Math.random() * legal.actions.length)]!;
    try {
      await sky.submit(id, undefined, action, legal.version);
      return;
    } catch (error) {
      if (!(error instanceof StaleVersion)) throw error; // the game moved on since it was read: read again
    }
  }
}

await over;
await sky.deleteWebhook(hook.webhook_id);
server.close();
