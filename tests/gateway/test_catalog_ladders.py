"""The catalog's per-game, per-player-count ladders: what each game offers at each table size, in words a player
understands, with the engine's level id and the rating's 95% interval, or "not measured"."""

from __future__ import annotations

import httpx

from ai.level_figures import ladder, level_details
from services.gateway.models.games import ladders_of

GAMES = [{"name": "opensky", "min_players": 2, "max_players": 4},
         {"name": "blueskies", "min_players": 2, "max_players": 5},
         {"name": "aeroplanes", "min_players": 3, "max_players": 5}]


def test_the_catalogs_ladders_are_the_published_fit_for_every_table():
    """Regrouped by the gateway from the service's level details, each ladder is exactly `ai.level_figures.ladder`:
    the levels the game offers (an old name that plays as another is that level's alias, not a rung), weakest
    first, each with its label and its rating at that player count."""
    ladders = ladders_of(GAMES, level_details([g["name"] for g in GAMES]))
    for game in GAMES:
        counts = [str(p) for p in range(game["min_players"], game["max_players"] + 1)]
        assert list(ladders[game["name"]]) == counts
        for players in counts:
            served = [rung.model_dump() for rung in ladders[game["name"]][players]]
            assert served == ladder(game["name"], int(players)), (game["name"], players)
    opensky = {rung.level: rung for rung in ladders["opensky"]["2"]}
    assert list(opensky) == ["random", "greedy", "fast"]
    assert opensky["fast"].label == "Strong" and set(opensky["fast"].aliases) == {"mcts-normal", "mcts-hard"}
    assert opensky["greedy"].aliases == ["mcts-easy"] and opensky["greedy"].rating == 0
    expert = {rung.level: rung for rung in ladders["blueskies"]["2"]}["mcts-normal"]
    assert expert.label == "Expert" and expert.low < expert.rating < expert.high and expert.aliases == ["mcts-hard"]
    # a level never measured at a table size says so, rather than borrowing another table's figure
    assert {rung.level: rung for rung in ladders["blueskies"]["4"]}["mcts-normal"].rating is None


def test_the_catalog_serves_a_ladder_for_every_table_of_every_game(http: httpx.Client):
    """Over the REST contract: every game and player count has its rungs, each with a label and the engine's level;
    a game without measured figures (the test registry's toy game) says "not measured" (null) at every rung."""
    body = http.get("/v1/catalog").json()
    for game in body["games"]:
        tables = body["ladders"][game["name"]]
        assert list(tables) == [str(p) for p in range(game["min_players"], game["max_players"] + 1)]
        for rungs in tables.values():
            assert [r["level"] for r in rungs] == [d["name"] for d in body["bot_level_details"]
                                                   if d["games"][game["name"]]["offered"]]
            assert all(r["label"] and set(r) >= {"rating", "low", "high", "games", "aliases"} for r in rungs)
    toy = body["ladders"]["toybids"]
    assert all(r["rating"] is None for rungs in toy.values() for r in rungs)
