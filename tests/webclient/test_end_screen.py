"""The end screen of a finished Aeroplanes game in a real browser: every seat's row, ranked by placement, breaks
the VP out by the rules' sources (AE-15.3) as the engine's own events report them: Era 1-3 (majorities and profit,
`era_scoring`, AE-13), the Americas bonus (`america_bonus`, AE-8.17), aircraft cards and passengers
(`final_scoring.added`, AE-15.1), and the money left (the tie-break, AE-15.2). The categories add up to the total;
where they would not, an "Other" column shows the difference (checked by feeding the page a doctored event log).

The game's three seats are played over REST by a player who seeks the Americas (so that every category scores);
the page shows the finished game to a spectator.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import httpx
import pytest

from tests.webclient.rest import move, rest_game

#: Browser suite (a whole Aeroplanes game's end screen): `make test-integration`, which CI runs; `make test` keeps the
#: web client's representative ones (test_browser, test_archived_games, test_languages, test_csp_pages; make test's
#: ten-minute budget)
pytestmark = pytest.mark.integration

CATALOGUE = Path(__file__).resolve().parents[2] / "services" / "webclient" / "static" / "i18n" / "en.json"

PLAYERS = 3
SEED = 5
CATEGORIES = ["era_1", "era_2", "era_3", "america_bonus", "final_scoring"]


def game_events(base_url: str, game_id: str) -> list[dict]:
    """Every event of a finished game as a spectator sees it: the SSE stream of GET /v1/games/{id}/events, from the
    game's creation (no `after`), which ends with the game's `end` event."""
    events: list[dict] = []
    kind, data = "message", []
    with httpx.stream("GET", f"{base_url}/v1/games/{game_id}/events", headers={"Accept": "text/event-stream"},
                      timeout=30) as response:
        response.raise_for_status()
        for line in response.iter_lines():
            if line == "":
                if data and kind == "message":
                    events.append(json.loads("\n".join(data)))
                if kind == "end":
                    break
                kind, data = "message", []
            elif line.startswith("event:"):
                kind = line[6:].strip()
            elif line.startswith("data:"):
                data.append(line[5:].removeprefix(" "))
    return events


def expected_parts(events: list[dict], players: int) -> dict[int, dict[str, int]]:
    """Each seat's VP by category, and its money left, from the engine's events."""
    out = {seat: dict.fromkeys(CATEGORIES, 0) for seat in range(players)}
    for e in events:
        if e["type"] == "era_scoring":
            for seat in range(players):
                out[seat][f"era_{e['era']}"] += sum(awards[seat] for awards in e["awards"].values())
        elif e["type"] == "america_bonus":
            out[e["seat"]]["america_bonus"] += e["vp"]
        elif e["type"] == "final_scoring":
            for seat in range(players):
                out[seat]["final_scoring"] += e["added"][seat]
                out[seat]["money"] = e["money"][seat]
    return out


def choose(actions: list[dict], rng: random.Random, long_haul: set[int], americas: set[str]) -> dict:
    """A player who seeks the Americas (AE-8.17): long-haul aircraft, tiles on an empty American slot, pays any
    shortfall; otherwise a random legal action. (Random bots hardly ever get there.)"""
    for wanted in (lambda a: a["type"] == "place_tile" and a["target"] in americas and a.get("replace") is None,
                   lambda a: a["type"] == "buy_aircraft" and a["card"] in long_haul,
                   lambda a: a["type"] == "choose_action" and a["kind"] == "place",
                   lambda a: a["type"] == "choose_action" and a["kind"] == "buy",
                   lambda a: a["type"] in ("pay_shortfall", "daring_pilot", "keep_roll", "roll_next", "choose_route")):
        fitting = [a for a in actions if wanted(a)]
        if fitting:
            return rng.choice(fitting)
    return rng.choice(actions)


@pytest.fixture(scope="module")
def finished_game(wc_gateway) -> dict:
    """A 3-player Aeroplanes game, every seat played over REST by `choose`, to its end: {id, api, events}."""
    http = httpx.Client(base_url=wc_gateway.url, timeout=30)
    data = http.get("/webclient/boards/aeroplanes").raise_for_status().json()
    long_haul = {c["number"] for c in data["aircraft"]["cards"] if c.get("longHaul")}
    americas = {d["id"] for d in data["board"]["destinations"] if d["region"] == "Americas"}
    key = http.post("/v1/players", json={"name": "End screen"}).raise_for_status().json()["api_key"]
    created = http.post("/v1/games", headers={"Authorization": f"Bearer {key}"},
                        json={"game": "aeroplanes", "players": PLAYERS, "seed": SEED}).raise_for_status().json()
    game_id = created["game_id"]
    tokens = {s["seat"]: {"Authorization": f"Bearer {s['token']}"} for s in created["seats"]}
    rng = random.Random(SEED)
    for _ in range(2000):
        game = http.get(f"/v1/games/{game_id}").raise_for_status().json()
        if game["status"] != "active":
            break
        seat = game["to_act"][0]
        actions = http.get(f"/v1/games/{game_id}/actions", headers=tokens[seat]).raise_for_status().json()["actions"]
        http.post(f"/v1/games/{game_id}/actions", headers=tokens[seat], json={
            "action": choose(actions, rng, long_haul, americas), "expected_version": game["version"],
        }).raise_for_status()
    assert game["status"] == "finished"
    return {"id": game_id, "api": game, "events": game_events(wc_gateway.url, game_id)}


def end_screen(page, game_id: str) -> list[dict]:
    """Open the finished game and read its end screen once the events are in: one dict per row, in row order."""
    page.goto(f"/game.html?id={game_id}")
    page.wait_for_selector("#final:not([hidden]) table[data-breakdown=ready]", timeout=30_000)
    rows = []
    for row in page.locator("#final-scores tbody tr").all():
        cells = {c.get_attribute("data-key"): c.get_attribute("data-value")
                 for c in row.locator("td[data-key]").all()}
        rows.append({"seat": int(row.get_attribute("data-seat")), "score": int(row.get_attribute("data-score")),
                     **{k: None if v is None else int(v) for k, v in cells.items()}})
    return rows


def test_the_end_screen_breaks_each_score_out_as_the_engines_events_report_it(page, finished_game, artifacts):
    api, events = finished_game["api"], finished_game["events"]
    expected = expected_parts(events, PLAYERS)
    for seat, parts in expected.items():  # the events themselves account for every VP (AE-15.3)
        assert sum(parts[k] for k in CATEGORIES) == api["scores"][seat]
    rows = end_screen(page, finished_game["id"])
    words = json.loads(CATALOGUE.read_text())["aeroplanes"]["text"]
    heads = page.locator("#final-scores thead th").all_text_contents()
    # the rules the columns score by are the headers' tooltips (js/rule_refs.js), never their words
    # (docs/decisions/webclient-trial.md item 9; the catalogue's words name no rule id: test_names.py)
    assert heads == ["Place", "Player", *(words["final_era"].format(era=n) for n in (1, 2, 3)),
                     "Americas bonus", "Aircraft cards and passengers", "Money left (tie-break)", "Total"]
    assert words["final_america"] == "Americas bonus" and words["final_money"] == "Money left (tie-break)"
    titles = page.locator("#final-scores thead th").evaluate_all("els => els.map(e => e.title)")
    assert titles == ["", "", "AE-13", "AE-13", "AE-13", "AE-8.17", "AE-15.1", "AE-15.2", ""]
    assert page.locator('#final-scores [data-key="other"]').count() == 0, "nothing is left unexplained"
    assert sorted(r["seat"] for r in rows) == list(range(PLAYERS))
    for row in rows:
        seat = row["seat"]
        assert sum(row[k] for k in CATEGORIES) == row["total"] == row["score"] == api["scores"][seat], row
        assert {k: row[k] for k in [*CATEGORIES, "money"]} == expected[seat], f"seat {seat}"
    # ranked by placement: winners first, then by VP, then by money (AE-15.2)
    keys = [(r["seat"] in api["winners"], r["total"], r["money"]) for r in rows]
    assert keys == sorted(keys, reverse=True)
    # each era's cell says its parts in words: the markets as the spec names them (AE-13.2) and profit
    detail = page.locator('#final-scores tbody tr:first-child td[data-key="era_1"]').get_attribute("title")
    assert all(m in detail for m in ("Europe", "Africa", "Asia/Australasia", "profit")), detail
    assert all(sum(expected[s][k] for s in expected) > 0 for k in CATEGORIES), "every category scored for someone"
    page.locator("#final").screenshot(path=str(artifacts / "end-screen-aeroplanes.png"))


def test_a_difference_the_categories_do_not_explain_shows_as_other(page, finished_game):
    """The page is fed the game's events with era 2's scoring missing: the era 2 cells are unknown and an "Other"
    column holds exactly what they hid, so every row still adds up to its total."""
    expected = expected_parts(finished_game["events"], PLAYERS)

    def doctored(route) -> None:
        whole = route.fetch().json()  # GET /webclient/events/{id}: the game's events, from its log
        kept = [e for e in whole["events"] if not (e["type"] == "era_scoring" and e["era"] == 2)]
        assert len(kept) == len(whole["events"]) - 1, "the era 2 scoring event was in the list, once"
        route.fulfill(status=200, content_type="application/json", body=json.dumps({**whole, "events": kept}))

    page.route(f"**/webclient/events/{finished_game['id']}", doctored)
    rows = end_screen(page, finished_game["id"])
    assert page.locator('#final-scores thead th[data-key="other"]').count() == 1
    for row in rows:
        assert row["era_2"] is None
        assert row["other"] == expected[row["seat"]]["era_2"]
        assert sum(row[k] or 0 for k in [*CATEGORIES, "other"]) == row["total"]


def test_a_resigned_player_is_shown_last_and_never_as_the_winner(page, wc_gateway, artifacts):
    """OpenSky, 2 players: seat 0 makes a move and resigns; the game ends at once and the end screen crowns seat 1,
    with seat 0 below it marked as resigned, whatever the scores (services/common/standings.py)."""
    http = httpx.Client(base_url=wc_gateway.url, timeout=30)
    game_id, tokens = rest_game(http, "Resigner", {"game": "opensky", "players": 2, "seed": 3})
    move(http, game_id, tokens)
    http.post(f"/v1/games/{game_id}/resign", headers=tokens[0]).raise_for_status()
    assert http.get(f"/v1/games/{game_id}").json()["winners"] == [1]
    rows = end_screen(page, game_id)
    assert [r["seat"] for r in rows] == [1, 0]
    winner = page.locator('#final-scores tr[data-seat="1"]')
    assert winner.get_attribute("data-winner") == "true"
    loser = page.locator('#final-scores tr[data-seat="0"]')
    assert loser.get_attribute("data-winner") is None and loser.get_attribute("data-left") == "resigned"
    words = json.loads(CATALOGUE.read_text())["ui"]
    assert words["resigned_tag"].strip() in loser.inner_text()
    assert words["winner_tag"].strip() not in loser.inner_text()
    assert "1st" in winner.inner_text() and "2nd" in loser.inner_text()
    page.screenshot(path=str(artifacts / "end-screen-resigned.png"))


@pytest.mark.parametrize("width", [390, 1366])
def test_the_end_screen_fits_its_box_on_a_phone_and_in_the_desktop_side_column(page, finished_game, width, artifacts):
    """docs/decisions/webclient-trial.md, item 2: Aeroplanes' eight columns ran off a 390 px phone and off the desktop's
    side column (Total unseen). Where the box is narrow each row is a card of "category: value" lines, the total beside
    the name."""
    page.set_viewport_size({"width": width, "height": 900})
    end_screen(page, finished_game["id"])
    box = page.eval_on_selector("#final", "e => e.getBoundingClientRect().right")
    cells = page.eval_on_selector_all("#final-scores tbody td, #final-scores tbody th",
                                      "els => els.map(e => [e.dataset.key || '', e.getBoundingClientRect().right])")
    assert cells and [c for c in cells if c[1] > box + 0.5] == [], (box, cells)
    assert page.eval_on_selector("#final-scores", "e => e.scrollWidth <= e.clientWidth"), "no sideways scrolling"
    for total in page.locator('#final-scores td[data-key="total"]').all():
        assert total.is_visible()
        assert total.evaluate("e => getComputedStyle(e, '::before').content").startswith('"Total'), "labelled"
    page.locator("#final").screenshot(path=str(artifacts / f"end-screen-aeroplanes-{width}.png"))
