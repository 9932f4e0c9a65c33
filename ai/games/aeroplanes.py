"""Aeroplanes' bot side: a guided `mcts-normal`, and a `fast` level that is the same search held to 100
iterations."""

from __future__ import annotations

import dataclasses

from ai.bot import Budget
from ai.games import BotProfile, FastSearch, ShippedModel, experiment, report
from ai.ismcts import SearchConfig
from ai.search_settings import SEARCH

#: ap3-r3: a policy fitted on the greedy-prior search's own choices (`research.train` plan `ap3-distill`). Alone it
#: plays below greedy (ap3-r2: 16.5% of 300 against two); as a search's root prior it is strong.
AP3_R3 = ShippedModel("ap3-r3.npz", "180567c6d91802498fad29d41e55f280c8e1a79b2991e8bd56ea6da2212fed93", (3, 4, 5),
                      experiment("2026-12-05-ap-guided-search", "Aeroplanes guided search: `ap3-r3` as the root prior"))

#: `mcts-normal` is guided by ap3-r3: at 1,000 iterations it took 44.3% [34.7, 54.2] of 96 paired 3-player games
#: against two greedy-prior searches at their 5,200 (fair 33.3%), separated above a fair third, at 0.21 of their CPU
#: in the same run (0.19 at 4 players; strength at 4-5 players not measured). Two of those runs kept printed
#: summaries only (research/2026-12-05-ap-guided-search), so what is published is the ladder's rating, fitted from
#: per-game ledgers (ai/ladders.json).
GUIDED = dataclasses.replace(SEARCH["mcts-normal"], budget=Budget(seconds=1.0, iterations=1000),
                             policy_prior=AP3_R3.file, policy_weight=1.0)
_SEARCH: dict[str, SearchConfig] = {"mcts-normal": GUIDED}
AP_FAST = experiment("2026-12-05-ap-fast-search", "Aeroplanes `fast`: a short guided search")

PROFILE = BotProfile(
    game="aeroplanes",
    # A 200-iteration search (mcts-easy's) took 52.4% of 42 paired 3-player games against the rule: it plays the
    # rule. mcts-hard plays as mcts-normal until its pair is measured (42 paired 3-player games, some 4 CPU hours on
    # a free core: `python -m research.lab.ladder --estimate --tables aeroplanes:3 --levels mcts-normal,mcts-hard
    # --as-built`): a level is offered once shown stronger than the one below it.
    same_as={"mcts-easy": "greedy", "mcts-hard": "mcts-normal"},
    search=_SEARCH,
    # The guided search as the prior of 100 iterations took 77.5% [72.4, 81.9] of 300 fresh 3-player games against
    # two greedy, where the rule with measured weights it replaces (`{"money_vp": 0.1, "tile_vp": 2.0, "seat_vp":
    # 0.2, "turn_work": 250}`, `python -m research.lab.rule_variants`) took 39.5%.
    fast_search=FastSearch(100, (3, 4, 5), AP_FAST),
    priors=(AP3_R3,),
    # The engine's rate from source (`python -m bench.bots`); compiled (since 5 December) it runs about 1.6x as many,
    # but the rate stays, since it defines the greedy-prior reference caps, and the one search Aeroplanes plays (the
    # guided `mcts-normal`) reaches its 1,000-iteration cap well inside its second either way.
    free_core_rate=5200,
    # Since the engine is compiled (5 December) each figure is the source build's times the compiled/source ratio
    # measured in the same runs (`python -m bench.native_cost --game aeroplanes --players 3 --source
    # engine/aeroplanes ai/heuristics/aeroplanes.py`, medians of 3 alternating runs, every decision identical, load
    # 1.0): greedy 0.656, fast 0.677, mcts-normal 0.619; mcts-easy and mcts-hard, which no Aeroplanes game plays as
    # themselves, keep their source figures. 3 players; 4-player tables cost about the same per decision.
    decision_cpu_s={
        "random": 0.0,
        # the rule's turn lookahead, mean over 400 positions (p50 0.8 ms, p99 80-94 ms: a long 3-player turn projects
        # thousands of positions), median of 3 runs of `python -m bench.bot_cost --games aeroplanes:3 --levels
        # greedy,fast --positions 400` (load 1.4-1.6)
        "greedy": 0.0028,
        "mcts-easy": 0.022,
        # the guided search, 0.208 (3 players; 0.188 at 4) of the greedy-prior search's CPU at 5,200 iterations on
        # the same 10 positions in the same runs (`python -m bench.guided_cost --game aeroplanes --players 3 4
        # --positions 10 --repeats 2`, 3 runs, medians; load 0.2-0.8), times that search's 0.60 s
        "mcts-normal": 0.077,
        "mcts-hard": 1.61,
        # the guided search at 100 iterations: 3.07x greedy's CPU in the same runs (median of 3 runs of `python -m
        # bench.bot_cost --games aeroplanes:3 aeroplanes:4 aeroplanes:5 --levels greedy,fast --variants iters
        # --positions 400`, every other job stopped; 9.2 ms against 3.0 ms, p99 13.2-13.5 ms; 4-5 players 8.5-8.9
        # ms), times greedy's 2.8 ms here (bench/results/bot-cost-aeroplanes-fast-search.txt)
        "fast": 0.0086,
    },
    level_identity={"random": "random", "greedy": "greedy", "fast": "search:guided:ap3-r3:100",
                    "mcts-normal": "search:guided:ap3-r3:1000"},
    evidence={
        "same_as": experiment("2026-12-03-ladder", "The ladder (every level stronger than the one below)"),
        "search": AP3_R3.evidence,
        "fast_search": AP_FAST,
        "free_core_rate": report("Bot speed"),
        "decision_cpu_s": report("Bot cost"),
        "level_identity": report("Ladders per game and player count: one fit over every stored ledger"),
    },
)
