/**
 * A bot that enters a Swiss tournament and plays its games with random legal moves, using only @skyboard/client.
 * SKYBOARD_URL (http://127.0.0.1:8000), SKYBOARD_API_KEY (the account that enters), TOURNAMENT_ID.
 * Each round's table arrives on the account stream as a `game_start` carrying the `tournament_id`; the API key plays
 * the seat. The event's feed says when it is over (`end`), after the last game of the last round.
 */
import { SkyboardClient, StaleVersion } from "../src/index.js";

const tournamentId = process.env.TOURNAMENT_ID;
if (!tournamentId) throw new Error("set TOURNAMENT_ID");
const sky = new SkyboardClient({ baseUrl: process.env.SKYBOARD_URL ?? "http://127.0.0.1:8000", apiKey: process.env.SKYBOARD_API_KEY });
console.log((await sky.joinTournament(tournamentId)).entered ? "entered" : "not entered");

async function play(signal: AbortSignal): Promise<void> {
  const mine = new Set<string>(); // this event's games; replay: a table announced before the stream opened is not missed
  for await (const frame of sky.accountEvents({ replay: true, signal })) {
    if (frame.event === "game_start" && frame.data.tournament_id === tournamentId) {
      mine.add(frame.data.game_id);
      console.log("round", frame.data.round, "table", frame.data.table, "game", frame.data.game_id);
    }
    if ((frame.event === "game_start" || frame.event === "your_turn") && mine.has(frame.data.game_id)) {
      const gameId = frame.data.game_id;
      for (let legal = await sky.legalActions(gameId); legal.actions.length; legal = await sky.legalActions(gameId)) {
        try {
          await sky.submit(gameId, undefined, legal.actions[Math.floor(Math.random() * legal.actions.length)]!, legal.version);
          break;
        } catch (error) {
          if (!(error instanceof StaleVersion)) throw error; // another seat moved first (a sealed choice): read again
        }
      }
    } else if (frame.event === "game_end" && mine.has(frame.data.game_id)) {
      console.log("game over", frame.data.game_id, "scores", JSON.stringify(frame.data.scores));
    }
  }
}

async function theEnd(): Promise<void> { // the feed: pairings and standings, then `end`
  for await (const frame of sky.tournamentEvents(tournamentId!)) if (frame.event === "end") return;
}

const stop = new AbortController();
const player = play(stop.signal);
await Promise.race([player.then(() => { throw new Error("the account stream ended before the tournament"); }), theEnd()]);
stop.abort();
await player.catch(() => undefined);
const me = (await sky.me()).player_id;
const final = (await sky.standings(tournamentId)).standings.filter((s) => s.player_id === me);
console.log("final", JSON.stringify(final.map((s) => [s.rank, s.player_id, s.points])));
