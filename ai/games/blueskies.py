"""Blue Skies' bot side: a learned `fast` level and a guided `mcts-normal`."""

from __future__ import annotations

import dataclasses

from ai.bot import Budget
from ai.games import BotProfile, ShippedModel, experiment, report
from ai.ismcts import SearchConfig
from ai.search_settings import SEARCH

#: bs2-r3: the first distilled policy, today the guided search's root prior.
BS2_R3 = ShippedModel("bs2-r3.npz", "1c53dec49a056cf07df70ca3f1cc841c416aeaff25bd551a9e402e9578cca01e", (2, 3, 4, 5),
                      experiment("2026-12-03-bs-guided-search",
                                 "Blue Skies guided search: the shipped model as the search's root prior"))

#: bs2-r5, the first expert-iteration round (learned from the guided search's own 2-player games): beats greedy at
#: every table size, and beats it more than bs2-r3 did in the same games (2 players: 77.5% of 1,000 fresh games
#: against 69.9%, +7.6 +- 1.9 points paired; 3-5 players +4 to +8).
BS2_R5 = ShippedModel("bs2-r5.npz", "3b8cc44037e958f2c577df8c3638868a7c833887578b0c90921650dfbe442b1c", (2, 3, 4, 5),
                      experiment("2026-12-04-bs-expert-iteration",
                                 "Expert iteration, round 1: `bs2-r5`, the new Blue Skies `fast` level"))

#: `mcts-normal` is the guided search: bs2-r3's policy as the root's PUCT prior, at most 1,000 iterations. It took
#: 72.5% [57.2, 83.9] of 40 paired games against the greedy-prior search at equal 1,000 caps, and 60.0% [53.1, 66.5]
#: of 200 (separated) against that search at its own 5,300 iterations (what 1.0 s buys on a free core, the level
#: until 3 December) at under half its CPU a decision (0.17-0.20 s against 0.41 s). Research tools that name
#: `mcts-normal` get this search here; the greedy-prior search is `ai.levels.SEARCH["mcts-normal"]`. Those two runs
#: kept printed summaries only (research/2026-12-03-bs-guided-search), so what is published is the ladder's rating,
#: fitted from per-game ledgers (ai/ladders.json).
GUIDED = dataclasses.replace(SEARCH["mcts-normal"], budget=Budget(seconds=1.0, iterations=1000),
                             policy_prior=BS2_R3.file, policy_weight=1.0)
_SEARCH: dict[str, SearchConfig] = {"mcts-normal": GUIDED}

PROFILE = BotProfile(
    game="blueskies",
    # A 200-iteration search (mcts-easy's) took 48.8% of 40 paired games against the rule: it plays the rule. The
    # learned `fast` level sits between greedy and mcts-normal, each pair separated (fast 68.8% of 80 against greedy,
    # mcts-normal 69.8% of 43 against fast, when mcts-normal was the greedy-prior search, which the guided one beats
    # 60.0% of 200). mcts-hard took 72.5% of 80 against the greedy-prior search but only 55.5% [45.7, 64.9] of 100
    # against the guided one (not separated; the rule written before those games), so it plays as mcts-normal until
    # a pair shows its own search stronger.
    same_as={"mcts-easy": "greedy", "mcts-hard": "mcts-normal"},
    search=_SEARCH,
    fast_model=BS2_R5,
    priors=(BS2_R3,),
    # `python -m bench.bots` on a quiet core: 5,300 search iterations a second at the first decision.
    free_core_rate=5300,
    decision_cpu_s={
        "random": 0.0,
        "greedy": 0.0007,
        "mcts-easy": 0.014,
        # the guided search, 0.18-0.20 of the greedy-prior search's CPU at 5,300 iterations on the same 10 positions
        # in the same run (`python -m bench.guided_cost`, 3 repetitions, two runs at load 2.0-2.5: 0.068-0.073 s
        # against 0.365-0.373 s at 2 players), times that search's 0.41 s
        "mcts-normal": 0.077,
        "mcts-hard": 1.28,
        # the model's mean over 29,568 decisions of 1,000 evaluation games, 0.87 ms (bs2-r3 0.86 ms in the same
        # run; `python -m research.train evaluate --model ai/policy/models/bs2-r5.npz --opponent greedy --deals 500
        # --seed 224 --report`; p99 1.6 ms)
        "fast": 0.0009,
    },
    level_identity={"random": "random", "greedy": "greedy", "fast": "policy:bs2-r5",
                    "mcts-normal": "search:guided:bs2-r3:1000"},
    evidence={
        "same_as": experiment("2026-12-03-ladder", "The ladder (every level stronger than the one below)"),
        "search": BS2_R3.evidence,
        "fast_model": BS2_R5.evidence,
        "free_core_rate": report("Bot speed"),
        "decision_cpu_s": report("Bot cost"),
        "level_identity": report("Ladders per game and player count: one fit over every stored ledger"),
    },
)
