"""What the catalog publishes about each bot level: a description, the CPU (and think time) of one decision and a
rating, per game. The figures are each game's profile's (`ai.games`: `decision_cpu_s`, measured by `python -m
bench.bot_cost`, bench/RESULTS.md "Bot cost"; a forced move costs no thinking) and the published ladders'. Kept
apart from `ai/levels.py` so that publishing a ladder's results does not change the code fingerprint its ledgers
are keyed by (`research.lab.tournament.code_fingerprint` leaves this file out, and hashes only what plays in a profile).
"""

from __future__ import annotations

import functools
import json
from pathlib import Path

from ai.games import profile, profiles
from ai.levels import ladder as levels_ladder
from ai.levels import levels, played_as

#: What each level is, for players (the catalog's `bot_level_details`).
DESCRIPTIONS: dict[str, str] = {
    "random": "Plays a uniformly random legal action: for learning the rules.",
    "greedy": "Plays the game's hand-written rule (ai/heuristics/<game>.py): instant, no look-ahead.",
    "mcts-easy": "Plays the game's hand-written rule, as greedy does: a 200-iteration search was not measurably "
                 "stronger in any game.",
    "mcts-normal": "Searches up to 1 s a decision (information-set Monte Carlo tree search); in Blue Skies and "
                   "Aeroplanes the search is guided by a learned policy and stops at 1,000 iterations: stronger "
                   "than the unguided search (Blue Skies: 60 games in 100; Aeroplanes: 44 in 100 against two of "
                   "it, where a third is fair) in about a fifth of its time. OpenSky does not offer it: there the "
                   "name plays as fast, since no search was measured stronger than OpenSky's rule.",
    "mcts-hard": "Searches up to 3 s a decision where a game plays its own search; today every game plays it as "
                 "mcts-normal, because the longer search was not measured stronger than mcts-normal's guided one "
                 "(Blue Skies: 55.5 games in 100, not separated).",
    "fast": "Answers at once. In Blue Skies it plays a policy learned from search, which beats the hand-written "
            "rule about 3 games in 4 with 2 or 3 players and more at bigger tables; in Aeroplanes, a 100-iteration "
            "search guided by a policy learned from search (about 74 games in 100 against two copies of the "
            "hand-written rule, where a third is fair; 62 in 100 against three, 67 against four); in OpenSky, the "
            "hand-written rule with its weights measured in thousands of paired games (about 67 games in 100 "
            "against the rule with two players; with four, no stronger than the rule); elsewhere the rule.",
}

#: What a player is told each level is called, by the level that plays (`ai.levels.played_as`): the engine's level
#: id stays the contract's name and is shown beside it as a detail. A level that plays as another in a game is
#: that level's alias there (an old name that keeps working: API, matchmaking, stored games) and is not offered.
LABELS: dict[str, str] = {"random": "Beginner", "greedy": "Casual", "fast": "Strong", "mcts-normal": "Expert",
                          "mcts-easy": "Casual", "mcts-hard": "Expert"}

#: The published ladders: one Plackett-Luce fit (Bradley-Terry at 2 players) per game and player count over every
#: stored paired ledger, greedy = 0 on the Elo scale, with 95% intervals (`python -m research.lab.ladder_fit --write`,
#: which writes it; a test checks it equals a fit of the ledgers now). game -> player count -> level -> rating, low,
#: high, games, identity; a rating of None: not measured at that table.
LADDERS_PATH = Path(__file__).resolve().parent / "ladders.json"


@functools.cache
def published_ladders() -> dict:
    """The ladders as `research.lab.ladder_fit` last wrote them (read once per process)."""
    return json.loads(LADDERS_PATH.read_text(encoding="utf-8"))


def ladder(game: str, players: int) -> list[dict]:
    """The levels `game` offers at a `players`-player table, weakest first (those that play as themselves,
    `ai.levels.ladder`): each with its player-facing label, its rating [95% interval] and games at that table (None:
    not measured), and the old names that play as it there (its aliases)."""
    table = published_ladders().get(game, {}).get(str(players), {})
    rungs = []
    for level in levels_ladder(game):
        rung = table.get(level) or {}
        rungs.append({"level": level, "label": LABELS.get(level, level), "rating": rung.get("rating"),
                      "low": rung.get("low"), "high": rung.get("high"), "games": rung.get("games", 0),
                      "aliases": [name for name in levels() if name != level and played_as(name, game) == level]})
    return rungs


def level_details(games: list[str] | tuple[str, ...] | None = None) -> list[dict]:
    """Per level (weakest first): its name, player-facing label, description and, per game, the expected think time
    and CPU seconds of one decision on a free core, whether the game offers it (else `same_as`: the level it plays
    as there, whose figures it shows), and its rating with the 95% interval at every player count of the game
    (`ratings`, keyed by the count; null: not measured), the smallest table's also as `rating` with its interval."""
    names = list(games) if games is not None else list(profiles())
    ladders = published_ladders()
    out = []
    for level in levels():
        per_game = {}
        for game in names:
            played = played_as(level, game)
            cpu = profile(game).decision_cpu_s.get(played)
            by_players = {}
            for players, table in ladders.get(game, {}).items():
                rung = table.get(played) or {}
                by_players[players] = None if rung.get("rating") is None else {
                    "rating": rung["rating"], "low": rung["low"], "high": rung["high"], "games": rung["games"]}
            first = by_players[min(by_players, key=int)] if by_players else None
            entry: dict = {"think_seconds": cpu, "cpu_seconds": cpu, "label": LABELS.get(played, played),
                           "offered": played == level, "rating": first and first["rating"],
                           "rating_low": first and first["low"], "rating_high": first and first["high"],
                           "rating_players": int(min(by_players, key=int)) if by_players else None,
                           "ratings": by_players}
            if played != level:
                entry["same_as"] = played
            per_game[game] = entry
        out.append({"name": level, "label": LABELS.get(level, level), "description": DESCRIPTIONS.get(level, ""),
                    "games": per_game})
    return out
