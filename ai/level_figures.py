"""What the catalog publishes about each bot level: a description, the CPU (and think time) of one decision and a
rating, per game. Measured figures, not play: kept apart from `ai/levels.py` (the budgets, the levels each level
plays as) so that publishing a ladder's results does not change the code fingerprint its ledgers are keyed by
(`ai.lab.tournament.code_fingerprint` leaves this file out), and a ledger resumes after its
own figures are written here.
"""

from __future__ import annotations

from ai.levels import SAME_AS, levels, played_as

#: What each level is, for players (the catalog's `bot_level_details`).
DESCRIPTIONS: dict[str, str] = {
    "random": "Plays a uniformly random legal action: for learning the rules.",
    "greedy": "Plays the game's hand-written rule (ai/heuristics/<game>.py): instant, no look-ahead.",
    "mcts-easy": "Plays the game's hand-written rule, as greedy does: a 200-iteration search was not measurably "
                 "stronger in any game.",
    "mcts-normal": "Searches up to 1 s a decision (information-set Monte Carlo tree search); in Blue Skies and "
                   "Aeroplanes the search is guided by a learned policy and stops at 1,000 iterations: stronger "
                   "than the unguided search (Blue Skies: 60 games in 100; Aeroplanes: 44 in 100 against two of "
                   "it, where a third is fair) in about a fifth of its time.",
    "mcts-hard": "Searches up to 3 s a decision where a game plays its own search; today every game plays it as "
                 "mcts-normal, because the longer search was not measured stronger than mcts-normal's guided one "
                 "(Blue Skies: 55.5 games in 100, not separated).",
    "fast": "Answers at once. In Blue Skies it plays a policy learned from search, which beats the hand-written "
            "rule about 3 games in 4 with 2 or 3 players and more at bigger tables; in Aeroplanes, a 100-iteration "
            "search guided by a policy learned from search (about 77 games in 100 against two copies of the "
            "hand-written rule, where a third is fair; 62 in 100 against three, 67 against four); in OpenSky, the "
            "hand-written rule with its weights measured in thousands of paired games (about 67 games in 100 "
            "against the rule with two players); elsewhere the rule.",
}

#: Mean CPU seconds of one decision with a choice on a free core, which is also its expected think time there,
#: by level and game (2 players; Aeroplanes 3), measured by `python -m bench.bot_cost` at each level's free-core
#: iteration count (bench/RESULTS.md, "Bot cost"). A forced move costs no thinking. 4-player tables cost about
#: the same per decision (Aeroplanes mcts-normal 0.58 s, mcts-hard 1.84 s).
DECISION_CPU_S: dict[str, dict[str, float]] = {
    "random": {"opensky": 0.0, "aeroplanes": 0.0, "blueskies": 0.0},
    # Aeroplanes: the rule's turn lookahead, mean over 400 positions (p50 0.8 ms, p99 80-94 ms: a long 3-player
    # turn projects thousands of positions), median of 3 runs of `python -m bench.bot_cost --games aeroplanes:3
    # --levels greedy,fast --positions 400` (4 December, load 1.4-1.6); 0.8 ms had come from 20 positions of one
    # game's opening
    # Since the engine is compiled (5 December, fourth session) each Aeroplanes figure here is the source build's
    # times the compiled/source ratio measured in the same runs (`python -m bench.native_cost --game aeroplanes
    # --players 3 --source engine/aeroplanes ai/heuristics/aeroplanes.py`, medians of 3 alternating runs, every
    # decision identical, load 1.0): greedy 0.656 (4.3 ms before), fast 0.677 (2.4 ms), mcts-normal 0.619 (0.125 s);
    # mcts-easy and mcts-hard, which no Aeroplanes game plays as themselves, keep their source figures.
    "greedy": {"opensky": 0.0001, "aeroplanes": 0.0028, "blueskies": 0.0007},
    "mcts-easy": {"opensky": 0.018, "aeroplanes": 0.022, "blueskies": 0.014},
    # Blue Skies: the guided search (`ai.levels.GAME_SEARCH`), 0.18-0.20 of the greedy-prior search's CPU at 5,300
    # iterations on the same 10 positions in the same run (`python -m bench.guided_cost`, 3 repetitions, two runs at
    # load 2.0-2.5: 0.068-0.073 s against 0.365-0.373 s at 2 players), times that search's 0.41 s here.
    # Aeroplanes: the guided search too (ap3-r3's prior, 1,000 iterations), 0.208 (3 players; 0.188 at 4) of the
    # greedy-prior search's CPU at 5,200 iterations on the same 10 positions in the same runs (`python -m
    # bench.guided_cost --game aeroplanes --players 3 4 --positions 10 --repeats 2`, 3 runs, medians; 5 December,
    # load 0.2-0.8), times that search's 0.60 s:
    # the mean over 120 positions of 3-player greedy games at its free-core cap of 5,200 iterations (p50 3,248: it
    # stops early once the choice is decided), median of 3 runs of `python -m bench.bot_cost --games aeroplanes:3
    # --levels greedy,mcts-normal --variants iters --positions 120` (4 December, load 2.0-3.0: 0.600-0.606 s, p99
    # 1.04-1.08 s)
    "mcts-normal": {"opensky": 0.099, "aeroplanes": 0.077, "blueskies": 0.077},
    "mcts-hard": {"opensky": 0.10, "aeroplanes": 1.61, "blueskies": 1.28},
    # Blue Skies: the model's mean over 29,568 decisions of 1,000 evaluation games, 0.87 ms (bs2-r3 0.86 ms in the
    # same run; `python -m ai.train evaluate --model ai/policy/models/bs2-r5.npz --opponent greedy --deals 500
    # --seed 224 --ledger ai/policy/models/bs2-r5.eval-greedy-seed224.jsonl --report`; p99 1.6 ms). OpenSky 2p: the rule
    # with its measured weights (`ai.policy.RULE_PARAMS`), 1.13x greedy's CPU on the same 40 positions in the same
    # run (`python -m bench.bot_cost --games opensky:2 --levels greedy,fast --variants iters --positions 40`, 4
    # December, load 2.6; 2-4 players 1.01-1.05x greedy's, 300 positions, 3 runs). Aeroplanes 3p: the rule with its
    # measured weights and its lookahead held to 250 projected positions, 0.55x greedy's CPU in the same runs (p99
    # 13-17 ms; the greedy line above). Since 5 December (fifth session) Aeroplanes' fast level is the guided search at
    # 100 iterations (`ai.policy.SEARCHED`): 3.07x greedy's CPU in the same runs (median of 3 runs of `python -m
    # bench.bot_cost --games aeroplanes:3 aeroplanes:4 aeroplanes:5 --levels greedy,fast --variants iters --positions
    # 400`, every other job stopped; 9.2 ms against 3.0 ms, p99 13.2-13.5 ms; 4-5 players 8.5-8.9 ms, p99 10-15 ms),
    # times greedy's 2.8 ms here (bench/results/bot-cost-aeroplanes-fast-search.txt).
    "fast": {"opensky": 0.00014, "aeroplanes": 0.0086, "blueskies": 0.0009},
}

#: Bradley-Terry rating of each level by game on the Elo scale, greedy = 0, over every game of the levels in the
#: ladder's ledgers (`python -m ai.lab.ladder --report`, `ai.lab.rating`; bench/RESULTS.md "The ladder"; 3 December):
#: OpenSky 2p over 400 games (fast: the rule with its measured weights, `ai.policy.RULE_PARAMS`, 67.2% of 12,000
#: fresh paired games against greedy, `python -m ai.lab.rule_variants ... --seed 87`: +125 [118, 132], the share's
#: logit, which a two-level Bradley-Terry fit is), Blue Skies 2p (`--as-built --seeds 40`: 40-80 games a pair),
#: Aeroplanes 3p over 82. Aeroplanes fast (since 5 December, fifth session, the guided search at 100 iterations): its
#: 77.5% [72.4, 81.9] of 300 fresh paired games one seat against two greedy read as a Plackett-Luce share,
#: 400 log10(2s / (1 - s)): +335 [+288, +383] (`python -m ai.lab.search_variants --game aeroplanes --players 3
#: --games 300 --iterations 100 --against greedy --seed 243 ...`; the rule it replaced: +22 [+10, +33]).
#: Blue Skies fast (bs2-r5): the logit of its 77.5% [74.8, 79.9] of 1,000 fresh paired games against greedy, +214
#: [189, 240] (`python -m ai.train evaluate --model ai/policy/models/bs2-r5.npz --opponent greedy --deals 500 --seed
#: 224`); the guided mcts-normal took 62.0% of 100 against it (+85 [15, 155]: 299 by that chain).
#: Blue Skies mcts-normal is the guided search: the greedy-prior search's 202 plus the guided search's +70 [+22,
#: +120] over it (60.0% of 200 paired games, bench/RESULTS.md "Blue Skies guided search"). Aeroplanes mcts-normal
#: too: the greedy-prior search's 433 plus +80 [+11, +150], the guided search's 44.3% [34.7, 54.2] of 96 paired games
#: one seat against two of it read as a Plackett-Luce (Bradley-Terry) share, 400 log10(2s / (1 - s))
#: (bench/RESULTS.md "Aeroplanes guided search").
#: mcts-hard plays as mcts-normal in every game, so it shows mcts-normal's figures: in Blue Skies its own search was
#: +38 [-30, +106] over the guided mcts-normal in 100 ladder games (55.5%, not separated; it was 368 by a chain
#: through the greedy-prior search before those games).
#: A clean sweep (random) is bounded by one virtual draw, so random's figure only says "far below". Ratings compare
#: levels within one game only; a level without games has none (the catalog says null); a level that plays as
#: another shows that level's.
RATINGS: dict[str, dict[str, float]] = {
    "random": {"opensky": -1161, "blueskies": -763, "aeroplanes": -770},
    "greedy": {"opensky": 0, "blueskies": 0, "aeroplanes": 0},
    "fast": {"blueskies": 214, "opensky": 125, "aeroplanes": 335},
    "mcts-normal": {"blueskies": 272, "aeroplanes": 513},
}


def level_details(games: list[str] | tuple[str, ...] | None = None) -> list[dict]:
    """Per level (weakest first): its name, description and, per game, the expected think time and CPU seconds of
    one decision on a free core, its rating (None until measured) and the level it plays as, if another."""
    names = list(games) if games is not None else sorted({g for table in DECISION_CPU_S.values() for g in table})
    out = []
    for level in levels():
        per_game = {}
        for game in names:
            played = played_as(level, game)
            cpu = DECISION_CPU_S.get(played, {}).get(game)
            entry: dict = {"think_seconds": cpu, "cpu_seconds": cpu, "rating": RATINGS.get(played, {}).get(game)}
            if game in SAME_AS.get(level, {}):
                entry["same_as"] = SAME_AS[level][game]
            per_game[game] = entry
        out.append({"name": level, "description": DESCRIPTIONS.get(level, ""), "games": per_game})
    return out
