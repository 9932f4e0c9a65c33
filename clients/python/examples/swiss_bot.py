"""A bot that enters a Swiss tournament and plays its games with random legal moves, using only skyboard-client.

SKYBOARD_URL (http://127.0.0.1:8000), SKYBOARD_API_KEY (the account that enters), TOURNAMENT_ID.
Each round's table arrives on the account stream as a `game_start` carrying the `tournament_id`; the API key plays
the seat. The event's feed says when it is over (`end`), after the last game of the last round.
"""
import asyncio
import os
import random

from skyboard_client import StaleVersion
from skyboard_client.aio import AsyncClient


async def play(sky: AsyncClient, tournament_id: str, rng: random.Random) -> None:
    mine: set[str] = set()  # this event's games; replay: a table announced before the stream opened is not missed
    async for event in sky.account_events(replay=True):
        if event.type == "game_start" and event.data.get("tournament_id") == tournament_id:
            mine.add(event.game_id)
            print("round", event.data["round"], "table", event.data["table"], "game", event.game_id, flush=True)
        if event.game_id in mine and event.type in ("game_start", "your_turn"):
            while (legal := await sky.legal_actions(event.game_id)).actions:  # empty: not ours to move now
                try:
                    await sky.submit(event.game_id, None, rng.choice(legal.actions), legal.version)
                    break
                except StaleVersion:  # another seat moved first (a sealed choice): read again
                    continue
        elif event.game_id in mine and event.type == "game_end":
            print("game over", event.game_id, "scores", event.data["scores"], flush=True)


async def main() -> None:
    env = os.environ.get
    tournament_id = os.environ["TOURNAMENT_ID"]
    async with AsyncClient(env("SKYBOARD_URL", "http://127.0.0.1:8000"), env("SKYBOARD_API_KEY")) as sky:
        print("entered" if (await sky.join_tournament(tournament_id)).entered else "not entered", flush=True)
        async def the_end() -> None:  # the feed: pairings and standings, then `end`
            async for item in sky.tournament_events(tournament_id):
                if item.type == "end":
                    return

        player = asyncio.create_task(play(sky, tournament_id, random.Random()))
        done, _ = await asyncio.wait({player, asyncio.create_task(the_end())}, return_when=asyncio.FIRST_COMPLETED)
        if player in done:
            player.result()  # the player stopped before the end: its error
        player.cancel()
        final = await sky.standings(tournament_id)
        me = (await sky.me()).player_id
        print("final", [(s.rank, s.player_id, s.points) for s in final.standings if s.player_id == me], flush=True)


if __name__ == "__main__":
    asyncio.run(main())
