"""A bot that plays rated matchmaking games with random legal moves, using only skyboard-client.

SKYBOARD_URL (http://127.0.0.1:8000), SKYBOARD_API_KEY (none: registers a bot account), GAME, PLAYERS, GAMES.
The API key plays the seats; the open account stream keeps the ticket queued and brings the match (`game_start`).
"""
import os
import random

from skyboard_client import Client, StaleVersion


def main() -> None:
    env = os.environ.get
    sky = Client(env("SKYBOARD_URL", "http://127.0.0.1:8000"), env("SKYBOARD_API_KEY"))
    if sky.api_key is None:
        print("registered bot", sky.create_player(env("BOT_NAME", "random-bot"), kind="bot").player_id, flush=True)
    rng, last_id = random.Random(), None
    for _ in range(int(env("GAMES", "1"))):
        ticket_id, game_id = sky.seek(env("GAME", "opensky"), int(env("PLAYERS", "2"))).ticket_id, None
        for event in sky.account_events(last_id):  # resumes by itself; while open, the ticket needs no polling
            last_id = event.id
            if game_id is None and event.type == "game_start" and (  # the match is pushed (or, if it came
                    event.data.get("ticket_id") == ticket_id or event.data.get("ongoing")):  # first, announced)
                print("matched", game_id := event.game_id, "seat", event.data["seat"], flush=True)
            if event.game_id == game_id and event.type in ("game_start", "your_turn"):
                # play what is legal now; StaleVersion: another seat moved first (a sealed choice): read again
                while (legal := sky.legal_actions(game_id)).actions:
                    try:
                        sky.submit(game_id, None, rng.choice(legal.actions), legal.version)
                        break
                    except StaleVersion:
                        continue
            elif event.game_id == game_id and event.type == "game_end":
                print("game over: scores", event.data["scores"], "winners", event.data["winners"], flush=True)
                break
    print("ratings", {g: round(r.ordinal, 2) for g, r in sky.me().ratings.items()}, flush=True)


if __name__ == "__main__":
    main()
