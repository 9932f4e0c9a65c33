"""A bot driven by webhooks: it holds no stream open, the platform calls it when it is its turn.

It registers a webhook for `your_turn` and `game_end`, starts a correspondence game against a platform bot, and
answers each verified delivery with a random legal move until the game ends. SKYBOARD_URL, SKYBOARD_API_KEY (none:
registers a bot account), GAME (opensky), LEVEL (greedy), PORT (8090), WEBHOOK_URL (where the platform reaches PORT:
https:// in production; http://127.0.0.1:PORT/ on `make run`'s development stack).
"""
import os
import random
from http.server import BaseHTTPRequestHandler, HTTPServer

from skyboard_client import Client, StaleVersion
from skyboard_client.webhooks import WebhookVerificationError, verify

env = os.environ.get
sky = Client(env("SKYBOARD_URL", "http://127.0.0.1:8000"), env("SKYBOARD_API_KEY"))
if sky.api_key is None:
    sky.create_player(env("BOT_NAME", "webhook-bot"), kind="bot")
port = int(env("PORT", "8090"))
server = HTTPServer(("127.0.0.1", port), BaseHTTPRequestHandler)  # listening before the first delivery can come
hook = sky.create_webhook(env("WEBHOOK_URL", f"http://127.0.0.1:{port}/"), ["your_turn", "game_end"])
game_id = sky.create_game(env("GAME", "opensky"), 2, bots={1: env("LEVEL", "greedy")},
                          time_control={"kind": "correspondence", "days_per_decision": 1}).game_id
print("game", game_id, "webhook", hook.webhook_id, flush=True)
handled: set[str] = set()  # webhook-ids done: a retried or redelivered event carries the same id


class Deliveries(BaseHTTPRequestHandler):
    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers["content-length"]))
        try:
            message = verify(hook.secret, dict(self.headers), body)
        except WebhookVerificationError:
            self.send_response(401)
            self.end_headers()
            return
        self.send_response(204)  # acknowledged at once; the move is made after the answer
        self.end_headers()
        if message.id in handled or message.data.get("game_id") != game_id:
            return
        handled.add(message.id)
        if message.type == "your_turn":
            while (legal := sky.legal_actions(game_id)).actions:
                try:
                    sky.submit(game_id, None, random.choice(legal.actions), legal.version)
                    break
                except StaleVersion:  # the game moved on since it was read: read again
                    continue
        elif message.type == "game_end":
            print("game over: scores", message.data["scores"], "winners", message.data["winners"], flush=True)
            raise SystemExit  # out of the serving loop below

    def log_message(self, *_args: object) -> None:
        pass


server.RequestHandlerClass = Deliveries
try:
    server.serve_forever()
except SystemExit:
    pass
finally:
    sky.delete_webhook(hook.webhook_id)
