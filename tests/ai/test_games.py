"""The bot profiles (`ai.games`): one module a game, discovered as the engines are; every setting and figure names a
section that exists; the models they name are exactly the shipped ones; and a new game's bot side is one file."""

from __future__ import annotations

import hashlib
import json
import re
import sys
import textwrap
from pathlib import Path

import ai
import ai.games
import engine
from ai.games import BotProfile, profile, profiles
from ai.level_figures import level_details
from ai.policy import MODELS_DIR

ROOT = Path(__file__).resolve().parents[2]


def test_every_game_has_one_profile_in_a_module_named_after_it():
    assert list(profiles()) == engine.games()
    for game, entry in profiles().items():
        assert isinstance(entry, BotProfile) and (ROOT / "ai" / "games" / f"{game}.py").is_file()


def test_a_game_without_a_profile_plays_every_level_as_itself_with_the_generic_settings():
    bare = profile("no-such-game")
    assert bare.same_as == {} and bare.search == {} and bare.fast_model is None and bare.rule_params == {}
    assert ai.ladder("no-such-game") == ai.levels()
    assert profile(None).played_as("mcts-hard") == "mcts-hard"


def _headings(document: Path) -> list[str]:
    return [line.lstrip("#").strip() for line in document.read_text(encoding="utf-8").splitlines()
            if re.match(r"#{1,6} ", line)]


def test_every_setting_and_figure_names_a_section_that_exists():
    """Each profile's evidence (and each shipped model's) points at a heading of a document in the repository."""
    checked = 0
    for game, entry in profiles().items():
        cited = dict(entry.evidence)
        cited |= {f"model {m.file}": m.evidence for m in entry.models()}
        if entry.fast_search is not None:
            cited["fast_search"] = entry.fast_search.evidence
        for name in ("same_as", "search", "fast_search", "fast_model", "rule_params", "decision_cpu_s",
                     "level_identity"):
            if getattr(entry, name):
                assert name in entry.evidence, (game, name)  # a setting without its source fails here
        for name, evidence in cited.items():
            document = ROOT / evidence.document
            assert document.is_file(), (game, name, evidence)
            assert any(h.startswith(evidence.heading) for h in _headings(document)), (game, name, evidence)
            checked += 1
    assert checked >= 15


def test_the_profiles_name_exactly_the_shipped_models_with_their_digests_and_cards():
    """`ai/policy/models/manifest.json` lists what ships; the profiles name exactly those files, with the same sha256
    (the files' own), each with its card, and nothing else sits in the folder."""
    manifest = json.loads((MODELS_DIR / "manifest.json").read_text(encoding="utf-8"))["models"]
    named = {m.file: (m.sha256, m.card, game) for game, entry in profiles().items() for m in entry.models()}
    assert named == {file: (e["sha256"], e["card"], e["game"]) for file, e in manifest.items()}
    for file, (sha256, card, game) in named.items():
        assert hashlib.sha256((MODELS_DIR / file).read_bytes()).hexdigest() == sha256, file
        assert json.loads((MODELS_DIR / card).read_text(encoding="utf-8"))["game"] == game
    priors = {c.policy_prior for entry in profiles().values() for c in entry.search.values() if c.policy_prior}
    assert priors <= set(named)


def test_a_profile_names_its_levels_and_its_figures_for_levels_that_exist():
    for game, entry in profiles().items():
        assert set(entry.same_as) | set(entry.search) | set(entry.decision_cpu_s) <= set(ai.levels()), game
        assert set(entry.same_as.values()) <= set(ai.levels())
        assert set(entry.level_identity) == set(ai.ladder(game)), game
        assert set(entry.decision_cpu_s) == set(ai.levels()), game  # the catalog shows a figure for every level
        assert set(entry.rule_params) <= set(range(engine.get(game).min_players, engine.get(game).max_players + 1))


TOY = '''
"""A toy game's bot side: what a fourth game adds, and nothing else."""

import dataclasses

from ai.bot import Budget
from ai.games import BotProfile, report
from ai.search_settings import SEARCH

PROFILE = BotProfile(
    game="toyskies",
    same_as={"mcts-easy": "greedy", "mcts-hard": "mcts-normal"},
    search={"mcts-normal": dataclasses.replace(SEARCH["mcts-normal"], budget=Budget(seconds=0.5, iterations=700))},
    free_core_rate=4000,
    decision_cpu_s={"random": 0.0, "greedy": 0.001, "mcts-easy": 0.01, "fast": 0.001, "mcts-normal": 0.2,
                    "mcts-hard": 0.6},
    level_identity={"random": "random", "greedy": "greedy", "fast": "greedy", "mcts-normal": "search:700"},
    evidence={"same_as": report("Bot strength")},
)
'''


def test_a_new_games_bot_side_is_one_module_that_the_levels_and_the_catalog_pick_up(tmp_path, monkeypatch):
    """One file in a folder on `ai.games`' search path, and every consumer sees the game: the levels it offers, what
    each old name plays as, its search settings and budgets, and the catalog's figures."""
    (tmp_path / "toyskies.py").write_text(textwrap.dedent(TOY), encoding="utf-8")
    monkeypatch.setattr(ai.games, "__path__", [*ai.games.__path__, str(tmp_path)])
    profiles.cache_clear()
    try:
        assert "toyskies" in profiles() and set(engine.games()) < set(profiles())
        assert ai.ladder("toyskies") == ["random", "greedy", "fast", "mcts-normal"]
        assert ai.played_as("mcts-hard", "toyskies") == "mcts-normal"
        assert ai.game_budget("mcts-normal", "toyskies") == ai.Budget(seconds=0.5, iterations=700)
        assert ai.game_budget("mcts-hard", "toyskies") == ai.Budget(seconds=0.5, iterations=700)
        from ai.levels import free_core_iterations

        assert free_core_iterations("mcts-normal", "toyskies") == 700  # 0.5 s x 4,000, within the cap
        assert free_core_iterations("mcts-hard", "toyskies", as_built=True) == 12_000  # 3 s x 4,000
        bot = ai.make_bot("mcts-hard", "toyskies")
        assert bot.level == "mcts-normal" and bot.by_game["toyskies"].budget.iterations == 700
        (details,) = [d for d in level_details(["toyskies"]) if d["name"] == "mcts-hard"]
        toy = details["games"]["toyskies"]
        assert toy["same_as"] == "mcts-normal" and toy["offered"] is False and toy["cpu_seconds"] == 0.2
        assert toy["label"] == "Expert" and toy["ratings"] == {}  # no ladder fitted yet: not measured
    finally:
        profiles.cache_clear()
        sys.modules.pop("ai.games.toyskies", None)
