"""Webhook delivery latency: from a move's commit to its `your_turn` / `game_end` at a webhook receiver.

`python -m bench.webhook_latency [--games 4 16] [--seconds 30] [--drain 60]`: a private stack (bench/stack.py: the
game-state service, the gateway, the outcomes consumer and the webhook deliverer, each its own process) and a
receiver on loopback. Per concurrency level, that many hot-seat OpenSky games (one account holds both seats, with a
webhook for `your_turn` and `game_end`) are played by as many threads, each move as soon as the previous one
answered. For each move the time of the mover's REST reply (the commit, plus the reply's way back) is kept by (game,
version); a delivery's latency is its arrival at the receiver minus that time. Prints p50, p90, p99 and max per
level, the moves per second the load made, and the machine's load average.

A move expects a delivery when its version announces one (services/outcomes/turn_events.py: `game_end` once the
game is over, else `your_turn` when a seat has a new decision; a bid that leaves the other seat to decide announces
nothing). After the play window the bench keeps reading until every expected delivery arrived or `--drain` seconds
passed since the last move, and reports each move still unmatched 3 s after the window (`unmatched_at_3s`, the cut
the bench used to stop at) with what Redis held for it then and after the drain: its outbox entry, its
account-stream entry, its webhook delivery (queued, attempts, the deliverer's log), and whether it arrived late.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import threading
import time
from collections import Counter
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx
import redis

from bench.stack import Stack
from services.accounts.keys import Keys as AccountKeys
from services.gamestate.keys import Keys as GameKeys
from services.gamestate.keys import bucket_of
from services.outcomes.turn_events import new_turns

#: where the bench used to stop reading: this long after the play window
CUT_S = 3.0


@dataclass(frozen=True, slots=True)
class Move:
    """One committed move of the bench: when its reply came, and the delivery it expects (None: none)."""

    at: float
    game_id: str
    version: int
    expect: str | None
    player_id: str
    webhook_id: str


class Receiver:
    """Arrival time of every delivery by its (game, version) (`game_end`: version None)."""

    def __init__(self) -> None:
        #: (game, version) -> (arrival, when the event was appended to the account stream: its webhook-id's ms)
        self.arrivals: dict[tuple[str, int | None], tuple[float, float]] = {}
        #: how many times each event arrived (its webhook-id and what it says: the id alone is unique per account
        #: only, and this receiver serves several): more than once is a repeat
        self.ids: Counter[tuple] = Counter()
        self.lock = threading.Lock()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                at = time.time()
                body = json.loads(self.rfile.read(int(self.headers["content-length"])))
                data = body["data"]
                with receiver.lock:
                    receiver.ids[(self.headers["webhook-id"], body["type"], data["game_id"], data["seat"],
                                  data.get("version"))] += 1
                    appended = int(self.headers["webhook-id"].rsplit("_", 1)[-1].split("-")[0]) / 1000
                    receiver.arrivals.setdefault((data["game_id"], data.get("version")), (at, appended))
                self.send_response(204)
                self.end_headers()

            def log_message(self, *_args) -> None:
                pass

        ThreadingHTTPServer.request_queue_size = 256  # the stdlib's 5 refuses bursts: they would be retried 2.5-5 s on
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hook"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def missing(self, moves: dict[tuple[str, int | None], Move]) -> list[tuple[str, int | None]]:
        with self.lock:
            return [k for k, m in moves.items() if m.expect and k not in self.arrivals]


def expected(done: dict[str, Any], before: list[int], actor: int) -> str | None:
    """The webhook event the version of a move's reply announces to the account holding every seat."""
    if done["status"] != "active":
        return "game_end"
    return "your_turn" if new_turns(done["to_act"], before, actor) else None


def play(url: str, receiver_url: str, moves: dict, rng: random.Random, stop_at: float) -> int:
    """One account's hot-seat games, one after another, until `stop_at`; how many moves it made."""
    made = 0
    with httpx.Client(base_url=url, timeout=30) as c:
        player = c.post("/v1/players", json={"name": f"wh-bench-{rng.randrange(10**9)}"}).json()
        auth = {"Authorization": f"Bearer {player['api_key']}"}
        hook = c.post("/v1/players/me/webhooks", headers=auth,
                      json={"url": receiver_url, "events": ["your_turn", "game_end"]})
        assert hook.status_code == 201, hook.text
        webhook_id = hook.json()["webhook_id"]
        while time.time() < stop_at:
            game = c.post("/v1/games", headers=auth, json={"game": "opensky", "players": 2, "account_seats": [0, 1],
                                                          "seed": rng.randrange(10**6)}).json()
            game_id, to_act = game["game_id"], game.get("to_act") or [0]
            while time.time() < stop_at:
                view = c.get(f"/v1/games/{game_id}/actions", headers=auth, params={"seat": to_act[0]}).json()
                if not view.get("actions"):
                    to_act = c.get(f"/v1/games/{game_id}", headers=auth, params={"seat": 0}).json()["to_act"]
                    if not to_act:
                        break
                    continue
                r = c.post(f"/v1/games/{game_id}/actions", headers=auth, params={"seat": to_act[0]},
                           json={"action": rng.choice(view["actions"]), "expected_version": view["version"]})
                at = time.time()
                if r.status_code != 200:
                    continue
                done = r.json()
                made += 1
                key = (game_id, done["version"] if done["status"] == "active" else None)
                moves[key] = Move(at, game_id, done["version"], expected(done, to_act, to_act[0]),
                                  player["player_id"], webhook_id)
                if done["status"] != "active" or not done["to_act"]:
                    break
                to_act = done["to_act"]
    return made


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


def inspect(client: redis.Redis, stack: Stack, move: Move) -> dict[str, Any]:
    """What Redis holds for one move's delivery: its outbox entry (and whether the outcomes group has it pending),
    its account-stream entry, the last version announced to the account, its queued delivery and its log lines."""
    games, accounts = GameKeys(stack.prefix), AccountKeys(f"{stack.prefix}gw:")
    stream = games.changes(bucket_of(move.game_id))
    found: dict[str, Any] = {"game": move.game_id, "version": move.version, "expect": move.expect}
    outbox = [(_text(i), {_text(k): _text(v) for k, v in f.items()}) for i, f in client.xrange(stream)]
    entry = next(((i, f) for i, f in outbox if f["g"] == move.game_id and int(f["v"]) == move.version), None)
    found["outbox"] = None if entry is None else {
        "id": entry[0], "status": entry[1]["status"], "to_act": entry[1].get("to_act"),
        "before": entry[1].get("before"), "actor": entry[1].get("actor")}
    if entry is not None:
        pending = client.xpending_range(stream, stack.outcomes_group, min=entry[0], max=entry[0], count=1)
        found["outbox"]["pending_in_group"] = bool(pending)
    sent = client.get(accounts.follow_sent(move.player_id, move.game_id))
    found["announced_up_to"] = int(sent) if sent is not None else None
    event_id = None
    for i, f in client.xrange(accounts.account_events(move.player_id)):
        kind, data = _text(f[b"type"]), json.loads(f[b"data"])
        if kind == move.expect and data.get("game_id") == move.game_id and \
                (kind == "game_end" or data.get("version") == move.version):
            event_id = _text(i)
            break
    found["account_event"] = event_id
    if event_id is not None:
        job = f"{move.webhook_id}/{event_id}"
        raw = client.hget(accounts.webhook_jobs(move.player_id), job)
        due = client.zscore(accounts.webhook_due(move.player_id), job)
        found["queued"] = None if raw is None else {"attempt": json.loads(raw).get("attempt"),
                                                    "due_in_ms": None if due is None else
                                                    round(due - time.time() * 1000)}
        found["log"] = [{k: e[k] for k in ("attempt", "outcome", "status_code", "error", "latency_ms", "at_ms")}
                        for e in (json.loads(x) for x in client.lrange(
                            accounts.webhook_log(move.player_id, move.webhook_id), 0, -1))
                        if e["event"] == event_id]
    return found


def level(stack: Stack, receiver: Receiver, games: int, seconds: float, seed: int, drain_s: float) -> dict:
    moves: dict[tuple[str, int | None], Move] = {}
    counts: list[int] = []
    stop_at = time.time() + seconds
    threads = [threading.Thread(target=lambda i=i: counts.append(play(
        stack.gateway_url, receiver.url, moves, random.Random(seed + i), stop_at))) for i in range(games)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    last_move = max((m.at for m in moves.values()), default=time.time())
    load = [round(x, 1) for x in os.getloadavg()]
    time.sleep(max(0.0, last_move + CUT_S - time.time()))
    client = redis.Redis.from_url(stack.redis_url)
    try:
        at_cut = {k: inspect(client, stack, moves[k]) for k in receiver.missing(moves)}
        while receiver.missing(moves) and time.time() < last_move + drain_s:
            time.sleep(0.2)
        late = []
        for k, seen in at_cut.items():
            after = inspect(client, stack, moves[k])
            with receiver.lock:
                arrival = receiver.arrivals.get(k)
            late.append({**seen, "arrived_after_move_s": None if arrival is None else
                         round(arrival[0] - moves[k].at, 3), "log_after_drain": after.get("log")})
    finally:
        client.close()
    with receiver.lock:
        matched = [(receiver.arrivals[k], m.at) for k, m in moves.items() if m.expect and k in receiver.arrivals]
    total = sorted((arrived - at) * 1000 for (arrived, _appended), at in matched)
    consumer = sorted((appended - at) * 1000 for (_arrived, appended), at in matched)
    deliverer = sorted((arrived - appended) * 1000 for (arrived, appended), _at in matched)
    return {"games": games, "moves_per_s": round(sum(counts) / seconds, 1), "moves": sum(counts),
            "expected": sum(1 for m in moves.values() if m.expect),
            "no_event": sum(1 for m in moves.values() if not m.expect), "deliveries": len(total),
            "unmatched_at_3s": len(at_cut), "unmatched_after_drain": len(receiver.missing(moves)),
            "commit_to_receiver": _quantiles(total), "commit_to_account_stream": _quantiles(consumer),
            "account_stream_to_receiver": _quantiles(deliverer), "load": load, "late": late}


def _quantiles(values: list[float]) -> dict[str, float | None]:
    """p50, p90, p99 and max (ms) of sorted `values`."""
    if len(values) < 3:
        return {"p50": None, "p90": None, "p99": None, "max": None}
    q = statistics.quantiles(values, n=100)
    return {"p50": round(q[49], 1), "p90": round(q[89], 1), "p99": round(q[98], 1), "max": round(values[-1], 1)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, nargs="+", default=[4, 16])
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--drain", type=float, default=60.0,
                        help="after the play window, wait this long after the last move for missing deliveries")
    parser.add_argument("--per-endpoint", type=int, default=None,
                        help="the deliverer's bound of deliveries in flight to one webhook (GATEWAY_WEBHOOKS_PER_"
                        "ENDPOINT; default: the deliverer's, 4)")
    args = parser.parse_args()
    receiver = Receiver()
    env = {} if args.per_endpoint is None else {"GATEWAY_WEBHOOKS_PER_ENDPOINT": str(args.per_endpoint)}
    with Stack(webhooks=True, matchmaker=False, exporter=False, gateway_env=env) as stack:
        for games in args.games:
            print(json.dumps(level(stack, receiver, games, args.seconds, args.seed, args.drain)), flush=True)
        repeated = sum(1 for n in receiver.ids.values() if n > 1)
        print(json.dumps({"events": len(receiver.ids), "received_twice_or_more": repeated}), flush=True)


if __name__ == "__main__":
    main()
