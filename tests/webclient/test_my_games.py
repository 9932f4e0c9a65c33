"""My games says how each finished game went for the player, not for the best-placed seat: its own place and score,
and whom it played against by name, in the page's language. A bot's win is not the player's, and a player who
resigned ranks last whatever the zombie that played the seat out scored (services/common/standings.py): the lobby
reads the place from the platform's result (`places`), never from the scores.

Three OpenSky games set up over gRPC, deterministic (OS-19.4: the highest total wins, ties share the victory): every
seat plays its first legal action, which makes seat 0 score 100 and the others 0, and a resigned seat is played by
the engine's default decision (this stack has no bot worker: the test plays the bot seats itself, through GameAdmin
as the workers do). The browser holds them as the lobby's New game form stores a game: every seat of the create
answer, the bots' with no token.
- won: 2 players, the player at seat 0 against a bot;
- lost: 3 players, the player at seat 1 between two bots (seat 0 wins; the player shares 2nd place with seat 2);
- resigned: 3 players, the player at seat 0 resigns before the first move; the zombie scores 100, yet the player is
  last and the two bots share the win.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator

import pytest

import engine
from services.common.settings import Settings
from services.gamestate.client_sync import GameClient
from services.gamestate.service import Registry
from tests.gateway.conftest import Gateway, ServiceInstance, gateway_settings, new_prefix
from tests.service_secret import SERVICE_SECRET

SEED = 1
ME = "Jadwiga"
#: each case: players, the player's seat, the bot seats and their levels, whether the player resigns at once
CASES = {
    "won": (2, 0, {1: "random"}, False),
    "lost": (3, 1, {0: "random", 2: "greedy"}, False),
    "resigned": (3, 0, {1: "random", 2: "greedy"}, True),
}
#: what My games says of each, in English and in Polish: the opponents, then how it went for the player
SAID = {
    "en": {"won": ("against Beginner bot", "you won with 100 points"),
           "lost": ("against Beginner bot, Casual bot", "2nd of 3, 0 points"),
           "resigned": ("against Beginner bot, Casual bot", "you resigned: 3rd of 3 (last), 100 points")},
    "pl": {"won": ("przeciw: bot Początkujący", "wygrana, 100 punktów"),
           "lost": ("przeciw: bot Początkujący, bot Amator", "2. z 3, 0 punktów"),
           "resigned": ("przeciw: bot Początkujący, bot Amator", "rezygnacja: 3. z 3 (ostatnie miejsce), 100 punktów")},
}


@pytest.fixture(scope="module")
def stack(redis_url: str) -> Iterator[tuple[Gateway, ServiceInstance]]:
    """The game-state service with every title and no bot dispatch (the test plays the bots), its zombie the
    engine's default decision; a gateway with the web client in front of it."""
    settings = Settings(
        redis_url=redis_url, grpc_addr="127.0.0.1:0", metrics_port=0, key_prefix=new_prefix(), dispatch_bots=False,
        service_secret=SERVICE_SECRET, watch_block_ms=200, shutdown_grace_s=0.5, zombie_bot_level="",
    )
    service = ServiceInstance(settings, Registry())
    gw = Gateway(gateway_settings(redis_url, service), outbox=settings.key_prefix)
    yield gw, service
    gw.stop()
    service.stop()


def play_out(client: GameClient, game_id: str, version: int, tokens: dict[int, str], bots: set[int],
             zombies: set[int]) -> None:
    """Every seat still played (the player's, by its token; a bot's, through GameAdmin) takes its first legal action
    until the game ends, read from a copy of the game kept with the engine. A resigned seat's turns are the
    service's own (the engine's default decision, at once): the copy plays them too, and the next move waits for
    the service to have made them. `version`: the game's version before the first decision."""
    admin = client.admin(SERVICE_SECRET)
    state = engine.get("opensky").new(client.get_game(game_id).players, SEED)
    while not state.is_over():
        to_act = state.to_act()
        seat = next((s for s in to_act if s in zombies), to_act[0])
        if seat in zombies:
            state.apply(seat, state.default_action(seat))
            version += 1
            continue
        deadline = time.monotonic() + 30
        while client.get_game(game_id).version < version:
            assert time.monotonic() < deadline, "the service did not play the resigned seat"
            time.sleep(0.02)
        action = state.legal_actions(seat)[0]
        if seat in bots:
            admin.submit_bot(game_id, seat, action.to_json(), version)
        else:
            client.submit(game_id, tokens[seat], action.to_json(), version)
        state.apply(seat, action)
        version += 1
    deadline = time.monotonic() + 30
    while client.get_game(game_id).status == "active":
        assert time.monotonic() < deadline, "the game did not end"
        time.sleep(0.02)


@pytest.fixture(scope="module")
def my_games(stack) -> tuple[dict, list[dict], dict[str, dict]]:
    """The player's account, the games its browser stores, and each case's game as the platform shows it."""
    gw, service = stack
    with gw.client() as http, GameClient(service.addr) as client:
        me = http.post("/v1/players", json={"name": ME}).raise_for_status().json()
        stored, shown = [], {}
        for case, (players, seat, bots, resigns) in CASES.items():
            created = http.post("/v1/games", headers={"Authorization": f"Bearer {me['api_key']}"}, json={
                "game": "opensky", "players": players, "seed": SEED, "bots": {str(s): lvl for s, lvl in bots.items()},
            }).raise_for_status().json()
            game_id = created["game_id"]
            token = next(s["token"] for s in created["seats"] if s["seat"] == seat)
            version = client.resign(game_id, token) if resigns else 0
            play_out(client, game_id, version, {seat: token}, set(bots), {seat} if resigns else set())
            shown[case] = http.get(f"/v1/games/{game_id}").raise_for_status().json()
            # as the New game form stores it: every seat of the answer, the bots' without a token
            stored.append({"game_id": game_id, "game": "opensky", "title": "OpenSky", "player": ME,
                           "seats": created["seats"], "created": f"2026-01-0{len(stored) + 1}T00:00:00Z"})
    return {"name": ME, **me}, stored, shown


def test_the_platforms_result_of_the_three_games(my_games) -> None:
    """What the lobby must say: the player won the first, placed 2nd of 3 in the second, and is last in the third
    (resigned), although its seat outscored both bots there."""
    _me, _stored, shown = my_games
    won, lost, resigned = shown["won"], shown["lost"], shown["resigned"]
    assert (won["scores"], won["winners"], won["places"]) == ([100, 0], [0], [1, 2])
    assert (lost["scores"], lost["winners"], lost["places"]) == ([100, 0, 0], [0], [1, 2, 2])
    assert (resigned["scores"], resigned["winners"], resigned["places"]) == ([100, 0, 0], [1, 2], [3, 1, 1])
    assert resigned["seats"][0]["status"] == "resigned"


@pytest.mark.parametrize(("lang", "viewport"), [("en", {"width": 1366, "height": 800}),
                                                ("pl", {"width": 390, "height": 844})])
def test_my_games_says_my_own_place_score_and_opponents(browser, stack, my_games, lang, viewport, artifacts) -> None:
    gw, _service = stack
    me, stored, _shown = my_games
    ctx = browser.new_context(base_url=gw.url, viewport=viewport, is_mobile=viewport["width"] < 500)
    ctx.add_init_script(f"localStorage.setItem('skyboard.lang', {json.dumps(lang)});"
                        f"localStorage.setItem('skyboard.player', {json.dumps(json.dumps(me))});"
                        f"localStorage.setItem('skyboard.games', {json.dumps(json.dumps(stored))});")
    page = ctx.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    try:
        page.goto("/")
        page.wait_for_function("n => [...document.querySelectorAll('#my-games li .game-state')]"
                               ".filter(e => e.textContent !== '…').length === n", arg=len(stored))
        for case, entry in zip(CASES, stored):
            item = page.locator(f'#my-games li[data-game-id="{entry["game_id"]}"]')
            assert (item.locator(".against").inner_text(), item.locator(".game-state").inner_text()) == SAID[lang][case]
        assert page.evaluate("document.documentElement.scrollWidth") <= viewport["width"]
        page.locator("#my-games").screenshot(path=str(artifacts / f"my-games-results-{lang}.png"))
    finally:
        ctx.close()
    assert not errors, errors
