"""OpenSky's bot side: no search was measured stronger than the rule, so the strengths are the rule and the rule
with its weights measured in paired games."""

from __future__ import annotations

from ai.games import BotProfile, experiment, report

PROFILE = BotProfile(
    game="opensky",
    # No search was shown stronger than the rule (mcts-easy's 200 iterations: 41.2% of 40 paired games; mcts-normal,
    # 1,000 iterations: 55.0% [48.1, 61.7] of 200 paired games, 53.0% of 269; a longer search plays worse), so
    # mcts-easy plays the rule and the other search levels play `fast`, the rule with its weights measured in paired
    # games (2 players: 67.2% [66.4, 68.1] of 12,000 fresh paired games against greedy; 3 players: 38.7% [36.9, 40.4]
    # of 3,000 against two greedy, fair 33.3%; 4 players: 26.7% of 3,000 against three, +1.1 points over the rule in
    # the same games): three strengths at every table.
    same_as={"mcts-easy": "greedy", "mcts-normal": "fast", "mcts-hard": "fast"},
    # The learned models (the rule corrected by measured gains) are not shipped: the rule with its measured
    # parameters alone beats them (os2-r2 correcting that rule: -1.0 +- 1.4 points of win rate against the rule
    # alone, same 2,000 games). Each table's parameters were measured in paired rule games on deals chosen after the
    # parameters were (`python -m research.lab.rule_variants`): leasing two aircraft whenever four months are left, paid
    # with the dearest won cards (OS-17.3), and the network's weights; at 3 players the same without the payment, at
    # 4 only the payment, leasing from four months left and no preference for the hub in place.
    rule_params={
        # a seat that drafts second does not complete a pair of callsign airports for the first drafter's cubes
        # (research/2026-12-06-opensky-subsidy-race: all six cubes to a racer in 48 of 200 games without it, none with)
        2: {"anc_fail": 0.45, "callsign_near": 0.5, "contested": 0.8, "one_stop": 0.7, "lease_board_max": 6,
            "lease_months_min": 4, "lease_aircraft": 2, "lease_pay_high": 1, "callsign_race": 10},
        3: {"anc_fail": 0.45, "callsign_near": 0.5, "contested": 0.8, "one_stop": 0.7, "lease_board_max": 6,
            "lease_months_min": 4, "lease_aircraft": 2},
        4: {"lease_pay_high": 1, "lease_months_min": 4, "hub_keep": 0.0},
    },
    # `python -m bench.bots` on a quiet core: 7,000 search iterations a second at the first decision.
    free_core_rate=7000,
    decision_cpu_s={
        "random": 0.0,
        "greedy": 0.0001,
        "mcts-easy": 0.018,
        "mcts-normal": 0.099,
        "mcts-hard": 0.10,
        # the rule with its measured weights, 1.13x greedy's CPU on the same 40 positions in the same run (`python -m
        # bench.bot_cost --games opensky:2 --levels greedy,fast --variants iters --positions 40`, load 2.6; 2-4
        # players 1.01-1.05x greedy's, 300 positions, 3 runs)
        "fast": 0.00014,
    },
    level_identity={"random": "random", "greedy": "greedy", "fast": "rule:opensky-fast"},
    evidence={
        "same_as": experiment("2026-12-03-ladder", "The ladder (every level stronger than the one below)"),
        "rule_params": experiment("2026-12-04-opensky-fast-rule", "OpenSky: the fast level's own rule"),
        "free_core_rate": report("Bot speed"),
        "decision_cpu_s": report("Bot cost"),
        "level_identity": report("Ladders per game and player count: one fit over every stored ledger"),
    },
)
