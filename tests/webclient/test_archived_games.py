"""Finished games from the platform, the same on every device (docs/decisions/webclient-trial.md, item 1 and item 10):
a game played to its end leaves Redis for the SQL archive, whose stream has no events; a browser that never saw the
game (a fresh one, holding only the player's account) finds it in the lobby's "My games" from the archive history
with its title, opponents and result, and the reopened game shows every score category and its whole event log
(GET /webclient/events/{id}: the archived log replayed), not "—" and an empty log. In all three titles.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from services.common.settings import Settings
from services.gamestate.service import Registry
from tests.gateway.conftest import Gateway, ServiceInstance, gateway_settings, new_prefix
from tests.service_secret import SERVICE_SECRET
from tests.webclient.rest import move

ME = "Archivist"
I18N = Path(__file__).resolve().parents[2] / "services" / "webclient" / "static" / "i18n"


@pytest.fixture(scope="module")
def archiving_gateway(redis_url: str, archive_pg_url: str) -> Iterator[tuple[Gateway, str]]:
    """The game-state service (every title) archiving a finished game 0.3 s after its end into the run's PostgreSQL
    database, and a gateway with the web client reading it; with the service's Redis key prefix."""
    settings = Settings(
        redis_url=redis_url, grpc_addr="127.0.0.1:0", metrics_port=0, key_prefix=new_prefix(), dispatch_bots=False,
        service_secret=SERVICE_SECRET, watch_block_ms=200, shutdown_grace_s=0.5, archive_url=archive_pg_url,
        archive_after_s=0.3, archive_interval_s=0.05,
    )
    service = ServiceInstance(settings, Registry())
    gw = Gateway(gateway_settings(redis_url, service, archive_url=archive_pg_url), outbox=settings.key_prefix)
    yield gw, settings.key_prefix
    gw.stop()
    service.stop()


def play_to_the_end_and_archive(http: httpx.Client, rdb, prefix: str, game: str, players: int) -> tuple[dict, dict]:
    """A game of `players` seats, all the player's, played over REST (each seat's first legal action) to its end,
    then archived (listed in the history, gone from Redis): the player and the game as it ended."""
    me = http.post("/v1/players", json={"name": ME}).raise_for_status().json()
    created = http.post("/v1/games", headers={"Authorization": f"Bearer {me['api_key']}"},
                        json={"game": game, "players": players, "seed": 38}).raise_for_status().json()
    game_id = created["game_id"]
    tokens = {s["seat"]: {"Authorization": f"Bearer {s['token']}"} for s in created["seats"]}
    for _ in range(3000):
        if http.get(f"/v1/games/{game_id}").raise_for_status().json()["status"] != "active":
            break
        move(http, game_id, tokens)
    ended = http.get(f"/v1/games/{game_id}").raise_for_status().json()
    assert ended["status"] == "finished", "the game reached its end"
    deadline = time.monotonic() + 30
    while (game_id not in [g["game_id"] for g in http.get(f"/v1/players/{me['player_id']}/games").json()["games"]]
           or rdb.exists(f"{prefix}game:{{{game_id}}}:meta")):
        assert time.monotonic() < deadline, "the game was not archived"
        time.sleep(0.1)
    return me, ended


#: Each case plays a whole game over REST before the browser opens it: OpenSky's (the shortest) in `make test`, the
#: two longer titles in `make test-slow` (make test's ten-minute budget)
@pytest.mark.parametrize(("game", "players", "lang"), [
    ("opensky", 2, "en"),
    pytest.param("blueskies", 2, "ru", marks=pytest.mark.slow),
    pytest.param("aeroplanes", 3, "pl", marks=pytest.mark.slow),
])
def test_an_archived_game_is_in_my_games_and_reopens_with_its_scores_and_log(browser, archiving_gateway, rdb, game,
                                                                              players, lang, artifacts):
    gw, prefix = archiving_gateway
    http = httpx.Client(base_url=gw.url, timeout=30)
    me, ended = play_to_the_end_and_archive(http, rdb, prefix, game, players)
    game_id = ended["game_id"]
    # what the platform replays for the archived game: its whole event list, each event with its version
    whole = http.get(f"/webclient/events/{game_id}").raise_for_status().json()
    assert whole["version"] == ended["version"] and whole["events"], "the archived log gives the game's events"
    assert [e["version"] for e in whole["events"]] == sorted(e["version"] for e in whole["events"])
    ctx = browser.new_context(base_url=gw.url, viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    # a browser that never saw the game: it holds the player's account alone, no game
    ctx.add_init_script(f"localStorage.setItem('skyboard.lang', {json.dumps(lang)});"
                        f"localStorage.setItem('skyboard.player', {json.dumps(json.dumps(me))});")
    page = ctx.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    try:
        page.goto("/")
        item = page.locator(f'#my-games li[data-game-id="{game_id}"]')
        item.wait_for()
        assert item.get_attribute("data-source") == "archive"
        page.wait_for_function("id => { const li = document.querySelector(`#my-games li[data-game-id='${id}']`);"
                               " return li && !li.textContent.includes('…'); }", arg=game_id)
        words = json.loads((I18N / f"{lang}.json").read_text())["ui"]
        assert item.locator("a").inner_text() == words[f"game_title_{game}"], "the title, not the id"
        assert game_id not in item.inner_text()
        page.screenshot(path=str(artifacts / f"archived-lobby-{game}-{lang}.png"), full_page=True)
        item.locator("a").click()
        page.wait_for_url(f"**/game.html?id={game_id}")
        page.wait_for_selector("#final:not([hidden]) table[data-breakdown=ready]", timeout=30_000)
        rows = page.locator("#final-scores tbody tr")
        assert rows.count() == players
        assert page.locator('#final-scores [data-key="other"]').count() == 0, "nothing left unexplained as Other"
        for row in rows.all():
            values = row.locator("td[data-key]").evaluate_all("els => els.map(e => [e.dataset.key, e.dataset.value])")
            parts = [v for k, v in values if k != "total"]
            assert parts and all(v is not None for v in parts), f"every category is known: {values}"
            assert int(dict(values)["total"]) == ended["scores"][int(row.get_attribute("data-seat"))]
            assert "—" not in row.inner_text()
        assert sum(ended["scores"]) > 0, "a game that scored"
        logged = page.locator("#log li").count()
        assert logged == len(whole["events"]), "the whole event log, each event once"
        page.screenshot(path=str(artifacts / f"archived-game-{game}-{lang}.png"), full_page=True)
    finally:
        ctx.close()
    assert not errors, errors
