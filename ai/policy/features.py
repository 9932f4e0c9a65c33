"""Afterstate features of every legal action, computed only from what the deciding seat may know.

Why this shape: a policy that scores each candidate action by the position it leads to (its *afterstate*) can
learn from the search's visit shares with few parameters, and the game's heuristic already names the quantities
that matter (`Heuristic.features`, the fitted win model's inputs).

Honesty by construction: the afterstates are built on ONE determinization of the seat's information set, seeded
by a hash of the seat's view (`view_seed`). Two true states the seat cannot tell apart have the same view, hence
the same determinization, hence the same features and the same decision (tests/ai/test_train.py checks it with
the engine's own determinizations as alternative truths). Chance inside `apply` (a card drawn) comes from that
determinization's reseeded RNG, so it is sampled, never read from the truth.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Sequence

from ai.heuristics import for_game
from engine.core import Action, State, canonical_json

#: Bumped whenever the vector below changes meaning: a model records the version it was trained on.
FEATURE_VERSION = "bs-after-1"

#: Action kinds of Blue Skies, in a fixed order (one-hot).
BS_TYPES = ("buy_gate", "buyout", "done", "play_card", "special", "discard", "help", "help_done")
#: Action kinds of OpenSky, in a fixed order (one-hot).
OS_TYPES = ("place_callsign", "place_aircraft", "place_hub", "keep_hub", "choose_market", "bid", "pass",
            "flash_deal", "decline_flash", "add_ancillaries", "lease")
#: Action kinds of Aeroplanes, in a fixed order (one-hot).
AP_TYPES = ("choose_home", "engine_maintenance", "choose_action", "buy_aircraft", "place_tile", "choose_route",
            "keep_roll", "roll_next", "radio_beacon", "daring_pilot", "pay_shortfall", "abort", "end_action",
            "claim_passenger", "take_advantage", "roll_advantage", "pick_advantage_dice")

#: Per game: (feature version, action kinds, points per margin unit, name of the time-left column).
SPECS: dict[str, tuple[str, tuple[str, ...], float, str]] = {
    "blueskies": (FEATURE_VERSION, BS_TYPES, 10.0, "rounds_left"),
    "opensky": ("os-after-1", OS_TYPES, 100.0, "season_left"),
    "aeroplanes": ("ap-after-1", AP_TYPES, 10.0, "eras_left"),
}


def feature_version(game: str) -> str:
    """The feature version `action_features` computes for `game`."""
    return _spec(game)[0]


def _spec(game: str) -> tuple[str, tuple[str, ...], float, str]:
    if game not in SPECS:
        raise ValueError(f"no action features for {game!r} yet")
    return SPECS[game]


def _time_left(game: str, heuristic, det: State) -> float:
    """Blue Skies: estimated rounds left (its scale is 4 + 2 x rounds left); OpenSky: the season's share left (its
    scale is 60 + 190 x (12 - month) / 11); Aeroplanes: eras left to score (its scale is 4 + 6 x (4 - era))."""
    scale = heuristic.scale(det)
    if game == "blueskies":
        return scale / 2.0 - 2.0
    if game == "aeroplanes":
        return (scale - 4.0) / 6.0 - 1.0
    return (scale - 60.0) / 190.0


def view_seed(state: State, seat: int) -> int:
    """A 64-bit seed from the seat's view alone: equal views (one information set) give equal seeds."""
    digest = hashlib.sha256(canonical_json(state.view(seat)).encode()).digest()
    return int.from_bytes(digest[:8], "big")


def feature_names(game: str) -> list[str]:
    """Names of the columns `action_features` returns for `game`."""
    _version, types, _unit, time_left = _spec(game)
    base = list(for_game(game).FEATURES)
    return ([f"type_{t}" for t in types]
            + [f"mine_{n}" for n in base] + [f"rival_{n}" for n in base]
            + [f"mine_d_{n}" for n in base] + [f"rival_d_{n}" for n in base]
            + ["margin", "margin_d", "margin_vs_best", "turn_ends", time_left])


def action_features(state: State, seat: int, legal: Sequence[Action], only: Sequence[int] | None = None
                    ) -> list[list[float]]:
    """One feature row per action of `legal` (the seat's legal actions, in order), from the afterstates on the
    view-seeded determinization. Margins are the heuristic's projected lead over the best rival, in tens of
    points (Blue Skies; OpenSky: hundreds); `margin_vs_best` is 0 for the actions of the best one-ply margin (in Blue
    Skies the greedy rule's choices, a one-ply argmax of the same margin).
    `only`: the rows of these indexes of `legal` alone, in that order, the same rows as in the full list (the
    margins of every legal action are still computed for `margin_vs_best`; the per-seat features, a third of
    the cost, only for these): the rule corrected by a model scores only the rule's top candidates."""
    game = state.game.name
    _version, types, unit, _time = _spec(game)
    heuristic = for_game(game)
    det = state.determinize(seat, random.Random(view_seed(state, seat)))
    before = heuristic.features(det)
    proj0 = heuristic.projected_scores(det)
    rounds = _time_left(game, heuristic, det)
    others = [s for s in range(state.num_players) if s != seat]
    margin0 = proj0[seat] - max(proj0[s] for s in others)
    wanted = set(range(len(legal))) if only is None else set(only)
    rows: dict[int, list[float]] = {}
    margins: list[float] = []
    for index, action in enumerate(legal):
        after = det.clone()
        after.apply(seat, action)
        proj = heuristic.projected_scores(after)
        rival = max(others, key=lambda s: proj[s])
        margin = proj[seat] - proj[rival]
        margins.append(margin)
        if index not in wanted:
            continue
        feats = heuristic.features(after)
        onehot = [1.0 if t == action.TYPE else 0.0 for t in types]
        mine, theirs = feats[seat], feats[rival]
        row = (onehot + list(mine) + list(theirs)
               + [a - b for a, b in zip(mine, before[seat], strict=True)]
               + [a - b for a, b in zip(theirs, before[rival], strict=True)]
               + [margin / unit, (margin - margin0) / unit, 0.0,
                  0.0 if seat in after.to_act() else 1.0, rounds])
        rows[index] = [float(x) for x in row]
    best = max(margins)
    at = len(types) + 4 * len(before[seat]) + 2
    for index, row in rows.items():
        row[at] = (margins[index] - best) / unit
    return [rows[i] for i in (range(len(legal)) if only is None else only)]
