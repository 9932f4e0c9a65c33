/**
 * A bot that plays rated matchmaking games with random legal moves, using only @skyboard/client.
 * SKYBOARD_URL (http://127.0.0.1:8000), SKYBOARD_API_KEY (none: registers a bot account), GAME, PLAYERS, GAMES.
 */
import { SkyboardClient, StaleVersion } from "../src/index.js";

const env = (name: string, fallback: string): string => process.env[name] ?? fallback;
const sky = new SkyboardClient({ baseUrl: env("SKYBOARD_URL", "http://127.0.0.1:8000"), apiKey: process.env.SKYBOARD_API_KEY });
if (!sky.apiKey) console.log("registered bot", (await sky.createPlayer({ name: env("BOT_NAME", "ts-bot"), kind: "bot" })).player_id);
let lastEventId: string | undefined;
for (let n = 0; n < Number(env("GAMES", "1")); n++) {
  const { ticket_id: ticketId } = await sky.seek({ game: env("GAME", "opensky"), players: Number(env("PLAYERS", "2")) });
  let gameId: string | undefined;
  // while the account stream is open the ticket stays queued (no polling) and the match arrives on it (game_start,
  // or announced as ongoing if it came first); the API key plays the seat (no token to keep)
  for await (const frame of sky.accountEvents(lastEventId === undefined ? {} : { lastEventId })) {
    lastEventId = frame.id ?? lastEventId; // resumes by itself if the connection drops
    if (gameId === undefined && frame.event === "game_start" && (frame.data.ticket_id === ticketId || frame.data.ongoing)) {
      gameId = frame.data.game_id;
      console.log("matched", gameId, "seat", frame.data.seat);
    }
    if ((frame.event === "your_turn" || frame.event === "game_start") && gameId !== undefined && frame.data.game_id === gameId) {
      for (let legal = await sky.legalActions(gameId); legal.actions.length; legal = await sky.legalActions(gameId)) {
        const action = legal.actions[Math.floor(Math.random() * legal.actions.length)]!;
        try {
          await sky.submit(gameId, undefined, action, legal.version);
          break;
        } catch (error) {
          if (!(error instanceof StaleVersion)) throw error; // another seat moved first: read again
        }
      }
    } else if (frame.event === "game_end" && frame.data.game_id === gameId) {
      console.log("game over: scores", JSON.stringify(frame.data.scores), "winners", JSON.stringify(frame.data.winners));
      break;
    }
  }
}
console.log("ratings", JSON.stringify((await sky.me()).ratings));
