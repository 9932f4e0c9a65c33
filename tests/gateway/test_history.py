"""GET /v1/players/{id}/games from the SQL archive, and game reads over REST once a game is archived."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator

import httpx
import pytest

from services.common.settings import Settings
from services.gamestate.archiver import Archiver
from services.gamestate.keys import Keys
from services.gamestate.service import Registry
from tests.gateway.conftest import Gateway, ServiceInstance, gateway_settings, new_prefix
from tests.gateway.helpers import Sse, gateway_commands
from tests.gateway.test_challenges import events
from tests.service_secret import SERVICE_SECRET
from tests.services import toygame


@pytest.fixture
def archived_stack(redis_url: str, archive_pg_url: str) -> Iterator[Gateway]:
    """A game-state service archiving at once into the run's PostgreSQL database, and a gateway reading it."""
    settings = Settings(
        redis_url=redis_url, grpc_addr="127.0.0.1:0", metrics_port=0, key_prefix=new_prefix(), dispatch_bots=False,
        service_secret=SERVICE_SECRET, watch_block_ms=200, shutdown_grace_s=0.5, archive_url=archive_pg_url,
        archive_after_s=0.3, archive_interval_s=0.05,
    )
    service = ServiceInstance(settings, Registry({toygame.GAME.name: toygame.GAME}))
    gw = Gateway(gateway_settings(redis_url, service, archive_url=archive_pg_url), outbox=settings.key_prefix)
    yield gw
    gw.stop()
    service.stop()


def _play_to_end(http: httpx.Client, game_id: str, tokens: dict[int, str]) -> None:
    """First legal action of a seat to act, over REST, until the game is over."""
    for _ in range(500):
        g = http.get(f"/v1/games/{game_id}").json()
        if g["status"] == "finished":
            return
        seat = g["to_act"][0]
        auth = {"Authorization": f"Bearer {tokens[seat]}"}
        action = http.get(f"/v1/games/{game_id}/actions", headers=auth).json()["actions"][0]
        r = http.post(f"/v1/games/{game_id}/actions", headers=auth,
                      json={"action": action, "expected_version": g["version"]})
        assert r.status_code == 200, r.text
    raise AssertionError("the game did not end")


def test_a_players_archived_games_newest_first_in_pages(archived_stack: Gateway):
    with archived_stack.client() as http:
        player = http.post("/v1/players", json={"name": "ada"}).json()
        key = {"Authorization": f"Bearer {player['api_key']}"}
        before = {}
        for i in range(5):
            created = http.post("/v1/games", headers=key, json={"game": "toybids", "players": 2, "seed": 40 + i})
            assert created.status_code == 201, created.text
            game_id = created.json()["game_id"]
            tokens = {s["seat"]: s["token"] for s in created.json()["seats"]}
            _play_to_end(http, game_id, tokens)
            before[game_id] = (http.get(f"/v1/games/{game_id}", headers={"Authorization": f"Bearer {tokens[1]}"})
                               .json(), http.get(f"/v1/games/{game_id}/log").json(), tokens[1])
            time.sleep(0.01)  # distinct end times
        url = f"/v1/players/{player['player_id']}/games"
        deadline = time.monotonic() + 20
        while len(http.get(url, params={"limit": 100}).json()["games"]) < 5:
            assert time.monotonic() < deadline, "the games were not archived"
            time.sleep(0.1)
        pages, cursor = [], None
        while True:
            page = http.get(url, params={"limit": 2, **({"cursor": cursor} if cursor else {})}).json()
            pages.append([g["game_id"] for g in page["games"]])
            cursor = page["next_cursor"]
            if cursor is None:
                break
        assert [len(p) for p in pages] == [2, 2, 1]
        assert [gid for p in pages for gid in p] == list(reversed(before))  # newest finished first
        first = http.get(url, params={"limit": 1}).json()["games"][0]
        assert first["owner"] is True and first["status"] == "finished" and first["game"] == "toybids"
        assert http.get(url, params={"game": "opensky"}).json()["games"] == []
        assert http.get(url, params={"status": "aborted"}).json()["games"] == []
        assert http.get(url, params={"cursor": "%%%"}).status_code == 422
        assert http.get(f"/v1/players/{'0' * 32}/games").status_code == 404
        for game_id, (view, log, token) in before.items():  # reads of archived games, unchanged
            assert http.get(f"/v1/games/{game_id}", headers={"Authorization": f"Bearer {token}"}).json() == view
            assert http.get(f"/v1/games/{game_id}/log").json() == log


def test_without_an_archive_a_player_has_no_archived_games(gateway: Gateway):
    with gateway.client() as http:
        player = http.post("/v1/players", json={"name": "bo"}).json()
        r = http.get(f"/v1/players/{player['player_id']}/games")
        assert http.get(f"/v1/players/{'1' * 32}/games").status_code == 404
    assert r.status_code == 200 and r.json() == {"player_id": player["player_id"], "games": [], "next_cursor": None}


REALTIME = {"kind": "realtime", "seconds_per_decision": 20.0, "reserve_seconds": 90.0}
CORRESPONDENCE = {"kind": "correspondence", "days_per_decision": 30}


@pytest.fixture
def slow_archiving_stack(redis_url: str, archive_pg_url: str) -> Iterator[tuple[Gateway, ServiceInstance]]:
    """`archived_stack` archiving 1.5 s after a game's end (time to read the game from Redis first), its gateway
    without an outcomes consumer (whose background Redis commands would mix with a request's)."""
    settings = Settings(
        redis_url=redis_url, grpc_addr="127.0.0.1:0", metrics_port=0, key_prefix=new_prefix(), dispatch_bots=False,
        service_secret=SERVICE_SECRET, watch_block_ms=200, shutdown_grace_s=0.5, archive_url=archive_pg_url,
        archive_after_s=1.5, archive_interval_s=0.05,
    )
    service = ServiceInstance(settings, Registry({toygame.GAME.name: toygame.GAME}))
    gw = Gateway(gateway_settings(redis_url, service, archive_url=archive_pg_url))
    yield gw, service
    gw.stop()
    service.stop()


def _challenge_game(http: httpx.Client, key: dict[str, str], control: dict) -> tuple[str, dict[int, str], str]:
    """An unrated challenge from `key`'s player to a new one, accepted: (game id, seat -> token, the accepter)."""
    to = http.post("/v1/players", json={"name": "accepter"}).json()
    r = http.post("/v1/challenges", headers=key, json={"to": to["player_id"], "game": "toybids", "rated": False,
                                                       "time_control": control})
    assert r.status_code == 201, r.text
    r = http.post(f"/v1/challenges/{r.json()['challenge_id']}/accept",
                  headers={"Authorization": f"Bearer {to['api_key']}"})
    assert r.status_code == 200, r.text
    game_id, seat = r.json()["game_id"], r.json()["seat"]
    def start_of_game(e: Sse) -> bool:  # the account's other games (POST /v1/games) start on its stream too
        return e.event == "game_start" and e.json()["game_id"] == game_id

    starts = events(http, key["Authorization"].removeprefix("Bearer "), lambda es: any(map(start_of_game, es)))
    mine = next(e for e in starts if start_of_game(e)).json()
    assert mine["game_id"] == game_id
    return game_id, {seat: r.json()["token"], mine["seat"]: mine["token"]}, to["player_id"]


def test_archived_games_show_the_time_control_they_had(slow_archiving_stack, rdb) -> None:
    """A realtime and a 30-day correspondence game, and an unrated challenge: GET /v1/games/{id} (spectator and
    seat: the same bytes, time control and who sits where included), their GET /v1/games lines and the history show
    the same once the games left Redis for the archive; reading an archived game, the gateway sends Redis no command
    about it (no read of who sits where; settling is the outcomes consumer's)."""
    gw, service = slow_archiving_stack

    def meta(game_id: str) -> str:
        return Keys(service.settings.key_prefix).meta(game_id)

    with gw.client() as http:
        player = http.post("/v1/players", json={"name": "clocked"}).json()
        key = {"Authorization": f"Bearer {player['api_key']}"}
        before, controls = {}, {}
        for seed, control in ((60, REALTIME), (61, CORRESPONDENCE), (None, REALTIME)):
            if seed is None:
                game_id, tokens, accepter = _challenge_game(http, key, control)
            else:
                created = http.post("/v1/games", headers=key, json={"game": "toybids", "players": 2, "seed": seed,
                                                                    "time_control": control})
                assert created.status_code == 201, created.text
                game_id = created.json()["game_id"]
                tokens = {s["seat"]: s["token"] for s in created.json()["seats"]}
            _play_to_end(http, game_id, tokens)
            seat = {"Authorization": f"Bearer {tokens[0]}"}
            listed = http.get("/v1/games", params={"status": "finished", "game": "toybids", "limit": 500}).json()
            before[game_id] = (http.get(f"/v1/games/{game_id}").content,
                               http.get(f"/v1/games/{game_id}", headers=seat).content,
                               next(g for g in listed["games"] if g["game_id"] == game_id), seat)
            assert rdb.exists(meta(game_id)), "read from Redis, before archival"
            controls[game_id] = control
            assert json.loads(before[game_id][0])["time_control"] == control
            assert before[game_id][2]["time_control"] == control
        seats = {s["seat"]: s["player_id"] for s in json.loads(before[game_id][0])["seats"]}
        assert sorted(seats.values()) == sorted([player["player_id"], accepter])  # the challenge: who sits where
        url = f"/v1/players/{player['player_id']}/games"
        deadline = time.monotonic() + 20
        while len(http.get(url).json()["games"]) < 3 or any(rdb.exists(meta(gid)) for gid in before):
            assert time.monotonic() < deadline, "the games were not archived"
            time.sleep(0.1)
        history = {g["game_id"]: g["time_control"] for g in http.get(url).json()["games"]}
        assert history == controls
        listed = http.get("/v1/games", params={"status": "finished", "game": "toybids", "limit": 500}).json()
        for game_id, (spectator, seat_view, line, seat) in before.items():
            assert http.get(f"/v1/games/{game_id}").content == spectator  # the same bytes
            assert http.get(f"/v1/games/{game_id}", headers=seat).content == seat_view
            assert next(g for g in listed["games"] if g["game_id"] == game_id) == line
            about = [c for c in gateway_commands(gw, lambda g=game_id: http.get(f"/v1/games/{g}")) if game_id in c]
            assert about == [], about


def test_archived_resigned_and_aborted_games_keep_the_result_every_read_showed(archived_stack: Gateway):
    """services/common/standings.py: the archive, the history and reads of the archived game agree with what the live
    game showed: a 2-player resignation is won by the opponent; an aborted game has no scores and no winners."""
    with archived_stack.client() as http:
        player = http.post("/v1/players", json={"name": "quits"}).json()
        key = {"Authorization": f"Bearer {player['api_key']}"}
        shown = {}
        for seed, leave in ((60, "resign"), (61, "abort")):
            created = http.post("/v1/games", headers=key, json={"game": "toybids", "players": 2, "seed": seed}).json()
            game_id, token = created["game_id"], created["seats"][0]["token"]
            assert http.post(f"/v1/games/{game_id}/{leave}", headers={"Authorization": f"Bearer {token}"}) \
                .status_code == 200
            live = http.get(f"/v1/games/{game_id}").json()
            shown[game_id] = (live["status"], live["scores"], live["winners"])
        assert sorted(shown.values(), key=str) == sorted([("finished", [0, 0], [1]), ("aborted", None, None)], key=str)
        url = f"/v1/players/{player['player_id']}/games"
        deadline = time.monotonic() + 20
        while len(games := http.get(url, params={"limit": 100}).json()["games"]) < 2:
            assert time.monotonic() < deadline, "the games were not archived"
            time.sleep(0.1)
        for g in games:
            assert (g["status"], g["scores"], g["winners"]) == shown[g["game_id"]]
            archived = http.get(f"/v1/games/{g['game_id']}").json()
            assert (archived["status"], archived["scores"], archived["winners"]) == shown[g["game_id"]]
            log = http.get(f"/v1/games/{g['game_id']}/log").json()
            assert (log["status"], log["scores"], log["winners"]) == shown[g["game_id"]]


@pytest.fixture
def unarchived_stack(redis_url: str, archive_pg_url: str) -> Iterator[tuple[Gateway, ServiceInstance]]:
    """A game-state service with the archive but no archiver running (ARCHIVE_INTERVAL_S=0): the test archives
    with `_archive_now`, so which games the archive holds is the test's choice, not the clock's."""
    settings = Settings(
        redis_url=redis_url, grpc_addr="127.0.0.1:0", metrics_port=0, key_prefix=new_prefix(), dispatch_bots=False,
        service_secret=SERVICE_SECRET, watch_block_ms=200, shutdown_grace_s=0.5, archive_url=archive_pg_url,
        archive_interval_s=0,
    )
    service = ServiceInstance(settings, Registry({toygame.GAME.name: toygame.GAME}))
    gw = Gateway(gateway_settings(redis_url, service, archive_url=archive_pg_url))
    yield gw, service
    gw.stop()
    service.stop()


def _archive_now(service: ServiceInstance) -> int:
    """One pass of the real archiver over every finished game (as ARCHIVE_AFTER_S=0 would run it)."""
    store, running = service.running.service.store, service.running
    archiver = Archiver(store.redis, store.keys, running.archive, running.service.registry.get, after_s=0,
                        on_dropped=store.forget)
    return service._run(archiver.archive_once())


def test_a_game_is_in_the_history_as_soon_as_it_ends_and_unchanged_once_archived(unarchived_stack, rdb) -> None:
    """A finished game took about a minute to appear in its players' history: the archive takes it
    ARCHIVE_AFTER_S (60 s) after its end. The history now lists the ended games the archive has not taken yet from
    the live store, exactly as the archive will, so nothing moves or changes when it takes them."""
    gw, service = unarchived_stack
    with gw.client() as http:
        player = http.post("/v1/players", json={"name": "at-once"}).json()
        key = {"Authorization": f"Bearer {player['api_key']}"}
        made = []
        for seed in (70, 71, 72, 73):
            created = http.post("/v1/games", headers=key, json={"game": "toybids", "players": 2, "seed": seed,
                                                                "account_seats": [0]})
            assert created.status_code == 201, created.text
            made.append((created.json()["game_id"], {s["seat"]: s["token"] for s in created.json()["seats"]}))
        (first, t1), (second, t2), (third, t3), (active, _t4) = made
        _play_to_end(http, first, t1)
        assert _archive_now(service) == 1  # the first is in the archive, the others end after
        _play_to_end(http, second, t2)
        assert http.post(f"/v1/games/{third}/abort", headers={"Authorization": f"Bearer {t3[0]}"}).status_code == 200
        assert rdb.exists(Keys(service.settings.key_prefix).meta(second)), "still in Redis: not archived"
        url = f"/v1/players/{player['player_id']}/games"
        at_once = http.get(url, params={"limit": 100}).json()
        assert [g["game_id"] for g in at_once["games"]] == [third, second, first], "the last ended first"
        assert at_once["next_cursor"] is None
        assert [(g["status"], g["scores"] is None, g["owner"]) for g in at_once["games"]] == [
            ("aborted", True, True), ("finished", False, True), ("finished", False, True)]
        pages, cursor = [], None
        while True:  # a cursor runs across the live games and the archived ones
            page = http.get(url, params={"limit": 1, **({"cursor": cursor} if cursor else {})}).json()
            pages += page["games"]
            cursor = page["next_cursor"]
            if cursor is None:
                break
        assert pages == at_once["games"]
        assert [g["game_id"] for g in http.get(url, params={"status": "aborted"}).json()["games"]] == [third]
        assert http.get(url, params={"game": "opensky"}).json()["games"] == []
        assert _archive_now(service) == 2
        assert not rdb.exists(Keys(service.settings.key_prefix).meta(second)), "archived: gone from Redis"
        assert http.get(url, params={"limit": 100}).json() == at_once, "the archive shows them as the history did"
        assert active not in {g["game_id"] for g in at_once["games"]}
