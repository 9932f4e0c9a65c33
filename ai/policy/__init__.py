"""Learned bots at play time (issue #35): afterstate features from the seat's view (`features`), a small model
evaluated with numpy (`model`) and the bots that play it (`bot`). Training is offline in `ai/train` (PyTorch);
this package needs numpy only, so a worker carries no training stack.

`SHIPPED` names the model the `fast` level plays in each game: a model is shipped only with its card (data
manifest, training command) and its evaluation ledgers beside it in `models/`, measured on deals never used for
training (bench/RESULTS.md, "Learned policy").
"""

from __future__ import annotations

import os
from pathlib import Path

MODELS_DIR = Path(__file__).resolve().parent / "models"

#: The variables BLAS libraries (numpy's OpenBLAS, MKL, OpenMP) size their thread pools by.
BLAS_THREAD_VARIABLES = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")


def one_blas_thread() -> None:
    """One BLAS thread per process unless the environment says otherwise; call it before numpy is imported. A model's
    products are a few thousand multiply-adds, too small to share, and a worker already runs a process a core: a
    pool's threads only spin beside it, and that CPU is charged to the decision (Blue Skies' fast level: 1.40 ms a
    decision with the default pool, 1.27 ms with one thread, medians of 3 runs of `bench.bot_cost`)."""
    for name in BLAS_THREAD_VARIABLES:
        os.environ.setdefault(name, "1")

#: game -> (model file in MODELS_DIR, the player counts it was measured at). A game or player count not listed plays its
#: `fast` rule (`RULE_PARAMS`) at the `fast` level. Blue Skies' model (bs2-r5, the first expert-iteration round: learned
#: from the guided search's own 2-player games) beats greedy at every table size, and beats it more than bs2-r3 did in
#: the same games (2 players: 77.5% of 1,000 fresh games against 69.9%, +7.6 +- 1.9 points paired; 3-5 players +4 to +8;
#: bench/RESULTS.md "Expert iteration"). OpenSky's models (plan A: the rule corrected by measured gains) are not
#: shipped: the rule with its measured parameters alone beats them (bench/RESULTS.md, "OpenSky: the fast level's own
#: rule": os2-r2 correcting that rule -1.0 +- 1.4 points of win rate against the rule alone, same 2,000 games).
SHIPPED: dict[str, tuple[str, tuple[int, ...]]] = {
    "blueskies": ("bs2-r5.npz", (2, 3, 4, 5)),
}


#: game -> player count -> the rule's parameters (`RuleParams` fields) the `fast` level plays: the rule alone
#: where no model is shipped, else the rule the model corrects (and its sealed bids). Each is measured in paired
#: rule games on deals chosen after the parameters were (`python -m ai.lab.rule_variants`, bench/RESULTS.md "OpenSky:
#: the fast level's own rule"); the `greedy` level keeps the game's own rule, the baseline of every figure.
RULE_PARAMS: dict[str, dict[int, dict[str, float | int]]] = {
    # leasing two aircraft whenever four months are left, paid with the dearest won cards (OS-17.3), and the
    # network's weights; at 3 players the same without the payment, at 4 only the payment, leasing from four months
    # left and no preference for the hub in place (bench/RESULTS.md, "Third round")
    "opensky": {
        2: {"anc_fail": 0.45, "callsign_near": 0.5, "contested": 0.8, "one_stop": 0.7, "lease_board_max": 6,
            "lease_months_min": 4, "lease_aircraft": 2, "lease_pay_high": 1},
        3: {"anc_fail": 0.45, "callsign_near": 0.5, "contested": 0.8, "one_stop": 0.7, "lease_board_max": 6,
            "lease_months_min": 4, "lease_aircraft": 2},
        4: {"lease_pay_high": 1, "lease_months_min": 4, "hub_keep": 0.0},
    },
}


#: game -> (iteration cap, the player counts it was measured at): where the `fast` level plays a short search
#: rather than a model or a rule alone: the game's guided `mcts-normal` (`ai.levels.GAME_SEARCH`, its learned policy
#: as the root prior) held to this many iterations and no time limit, so the same decision on any machine and a
#: CPU bounded by the cap. Aeroplanes' model alone plays below greedy (ap3-r2: 16.5% of 300 against two), and as the
#: prior of 100 iterations it took 77.5% [72.4, 81.9] of 300 fresh 3-player games against two greedy, where the
#: rule with measured weights it replaces (`{"money_vp": 0.1, "tile_vp": 2.0, "seat_vp": 0.2, "turn_work": 250}`,
#: `python -m ai.lab.rule_variants`) took 39.5% (bench/RESULTS.md, "Aeroplanes `fast`: a short guided search").
#: A table listed here plays the search whatever `SHIPPED` or `RULE_PARAMS` say.
SEARCHED: dict[str, tuple[int, tuple[int, ...]]] = {"aeroplanes": (100, (3, 4, 5))}


def fast_search_iterations(game: str, players: int) -> int | None:
    """The iteration cap of the short guided search the `fast` level plays at a `players`-player table of `game`,
    or None (it plays a model or a rule there)."""
    entry = SEARCHED.get(game)
    if entry is None or players not in entry[1]:
        return None
    return entry[0]


def fast_rule_params(game: str, players: int) -> dict[str, float | int]:
    """The `RuleParams` fields of the rule the `fast` level plays at a `players`-player table of `game` ({}: the
    game's own rule)."""
    return dict(RULE_PARAMS.get(game, {}).get(players, {}))


def shipped_model(game: str, players: int) -> Path | None:
    """The model file the `fast` level plays in a `players`-player game of `game`, or None (the rule plays)."""
    entry = SHIPPED.get(game)
    if entry is None or players not in entry[1]:
        return None
    return MODELS_DIR / entry[0]
