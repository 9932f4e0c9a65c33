"""The search levels' own settings, whatever the game (`ai.levels` offers them; a game's profile, `ai.games`, may
play a level with settings of its own, usually these with a field or two replaced). Apart from `ai.levels` so that
the profiles can build on them without importing the levels, which read the profiles."""

from __future__ import annotations

from ai.bot import Budget
from ai.ismcts import SearchConfig

#: Every search level values its cut-off leaves with the game's fitted win model (`ai.learned`): against
#: three greedy bots at 1,000 iterations it lifted 4-player Aeroplanes from 26% to 62% of the same 24 games
#: and 4-player Blue Skies from 28% to 39% of 32 (bench/RESULTS.md, "A fitted evaluation").
SEARCH: dict[str, SearchConfig] = {
    "mcts-easy": SearchConfig(Budget(seconds=0.1, iterations=200), rollout_depth=20, evaluation="learned"),
    "mcts-normal": SearchConfig(Budget(seconds=1.0, iterations=20_000), rollout_depth=30, evaluation="learned"),
    "mcts-hard": SearchConfig(Budget(seconds=3.0, iterations=100_000), rollout_depth=40, evaluation="learned"),
}
