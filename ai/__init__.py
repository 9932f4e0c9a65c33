"""Bots: one interface (`Bot.choose(state, seat, rng, budget)`) for every game and level.

    import ai
    ai.levels()                      # ['random', 'greedy', 'mcts-easy', 'fast', 'mcts-normal', 'mcts-hard']
    bot = ai.make_bot("mcts-normal")
    action = bot.choose(state, seat, random.Random(1), ai.Budget(seconds=0.5))

Bots are honest: they only use `state.view(seat)`, their own
`state.legal_actions(seat)` and `state.determinize(seat, rng)`.
"""

from ai.bot import Bot, Budget, DecisionStats
from ai.levels import default_budget, game_budget, ladder, levels, make_bot, played_as, scaled_budget

__all__ = ["Bot", "Budget", "DecisionStats", "default_budget", "game_budget", "ladder", "levels", "make_bot",
           "played_as", "scaled_budget"]
