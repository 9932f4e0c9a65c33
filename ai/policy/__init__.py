"""Learned bots at play time (issue #35): afterstate features from the seat's view (`features`), a small model
evaluated with numpy (`model`) and the bots that play it (`bot`). Training is offline in `ai/train` (PyTorch);
this package needs numpy only, so a worker carries no training stack.

`SHIPPED` names the model the `fast` level plays in each game: a model is shipped only with its card (data
manifest, training command) and its evaluation ledgers beside it in `models/`, measured on deals never used for
training (bench/RESULTS.md, "Learned policy").
"""

from __future__ import annotations

from pathlib import Path

MODELS_DIR = Path(__file__).resolve().parent / "models"

#: game -> (model file in MODELS_DIR, the player counts it was measured at). A game or player count not listed
#: plays the greedy rule at the `fast` level (`ai.levels.SAME_AS` says so per game). Blue Skies' model learned
#: from 2-player games and beats greedy at every table size; OpenSky's (plan A: the rule corrected by measured
#: gains) was measured at 2 players only, so 3-4 player tables play the rule (bench/RESULTS.md, "Learned policy").
SHIPPED: dict[str, tuple[str, tuple[int, ...]]] = {
    "blueskies": ("bs2-r3.npz", (2, 3, 4, 5)),
    "opensky": ("os2-r2.npz", (2,)),
}


#: game -> the rule's parameters (`RuleParams` fields) the `fast` level's corrected rule plays with where a
#: shipped model corrects it: the rule the model corrects, and its sealed bids. Measured in paired rule games
#: (`python -m ai.lab.rule_variants`, bench/RESULTS.md "OpenSky: the fast level's own rule") at 2 players only;
#: the `greedy` level keeps the game's own rule, the baseline of every figure.
RULE_PARAMS: dict[str, dict[str, float | int]] = {
    "opensky": {"anc_fail": 0.45, "lease_board_max": 4},
}


def shipped_model(game: str, players: int) -> Path | None:
    """The model file the `fast` level plays in a `players`-player game of `game`, or None (the rule plays)."""
    entry = SHIPPED.get(game)
    if entry is None or players not in entry[1]:
        return None
    return MODELS_DIR / entry[0]
