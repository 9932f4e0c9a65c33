"""What the game page says of the state agrees with the engine's state, for positions taken from real engine play and
rendered with the client's own code (tests/webclient/js/render.mjs), in English and Russian:

- OpenSky's status bar during October's leasing names October and season 1: the engine's month marker has already
  moved on (OS-17.1), but November is season 2's first month (OS-18) and had not begun ("Месяц Ноябрь (сезон 1)"
  was shown while October's leasing ran);
- OpenSky's hub prompt says which hub the decision is about: the first or the second (OS-20.3), and at the season
  reset the airport it stands on, on the note above the actions and on the Keep and Move buttons (OS-20.7).
"""

from __future__ import annotations

import random

import engine
from ai.heuristics import for_game
from tests.webclient.test_log_numbers import render


def _opensky_until(found, players: int = 2, options: dict | None = None):
    """The first view, over seeded OpenSky games played by the game's heuristic, for which `found(view)` holds."""
    game = engine.get("opensky")
    rule = for_game("opensky")
    for seed in range(40):
        state = game.new(players, seed, options)
        rng = random.Random(seed)
        while not state.is_over():
            view = state.view(None)
            if found(view):
                return state, view
            seat = state.to_act()[0]
            actions = state.legal_actions(seat)
            state.apply(seat, rule.choose(state.determinize(seat, rng), seat, actions, rng))
    raise AssertionError("no seeded game reached the position")


def status(game: str, view: dict, lang: str) -> str:
    return render([{"game": game, "lang": lang, "kind": "table", "view": view}])[0]


def test_octobers_leasing_is_said_as_october_in_season_1_not_november():
    _, view = _opensky_until(lambda v: v["phase"] == "lease" and v["lease"]["month_name"] == "October")
    assert (view["month_name"], view["season"]) == ("November", 1), "the engine's marker has moved on (OS-17.1)"
    en, ru = status("opensky", view, "en"), status("opensky", view, "ru")
    assert en == "Month October, end of month: leasing (season 1)"
    assert "Октябрь" in ru and "Ноябрь" not in ru and "сезон 1" in ru, ru
    # once the season reset has run, November is season 2's (OS-18)
    _, after = _opensky_until(lambda v: v["month_name"] == "November" and v["season"] == 2 and "lease" not in v)
    assert status("opensky", after, "en") == "Month November (season 2)"
    assert status("opensky", after, "ru") == "Месяц Ноябрь (сезон 2)"


def test_the_hub_prompt_says_which_hub_and_where_it_stands():
    europe = {"map": "europe"}
    state, view = _opensky_until(lambda v: v["phase"] == "hubs" and v["season"] == 2, options=europe)
    seat = state.to_act()[0]
    turn = view["hub_turn"]
    assert turn["seat"] == seat and turn["airport"] == view["players"][seat]["hubs"][turn["hub"] - 1]
    names = {a["code"]: a["name"] for a in state.game.describe()["boards"]["europe"]["airports"]}
    where = f"{names[turn['airport']]} ({turn['airport']})"
    actions = [a.to_json() for a in state.legal_actions(seat)]
    keep = next(a for a in actions if a["type"] == "keep_hub")
    move = next(a for a in actions if a["type"] == "place_hub")
    cases = [{"game": "opensky", "lang": lang, "view": view, "me": seat, **case}
             for lang in ("en", "ru") for case in ({"kind": "note"}, {"kind": "hint", "action": keep},
                                                  {"kind": "hint", "action": move})]
    en_note, en_keep, en_move, ru_note, ru_keep, ru_move = render(cases)
    first = turn["hub"] == 1
    which = "first" if first else "second"
    assert en_note == f"Your {which} hub is at {where}: keep it there or move it to another airport."
    assert (en_keep, en_move) == (f"the hub stays at {where}", f"moves the hub from {where}")
    code = f"({turn['airport']})"  # the airport's name in Russian, its code as printed
    assert ("первый" if first else "второй") in ru_note and code in ru_note
    assert code in ru_keep and code in ru_move
    # before the reset: which hub is being placed, and no airport yet
    state, view = _opensky_until(lambda v: v["phase"] == "hubs" and v["season"] == 1, options=europe)
    seat = state.to_act()[0]
    (note,) = render([{"game": "opensky", "lang": "en", "kind": "note", "view": view, "me": seat}])
    assert note == "Your first hub: choose its airport."
    (other,) = render([{"game": "opensky", "lang": "en", "kind": "note", "view": view, "me": 1 - seat}])
    assert other is None, "another seat's decision: no note"
