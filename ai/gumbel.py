"""A Gumbel / sequential-halving root over a learned policy (Danihelka et al., "Policy improvement by planning with
Gumbel", ICLR 2022), for a search that must decide in a few milliseconds.

Why: at 200 iterations a PUCT root spreads its visits over about 20 Blue Skies actions and ends where its prior
was (bench/RESULTS.md, "Blue Skies `fast`: a short search over the stronger model"). This root spends the same
budget where the decision is:

1. Gumbel-top-m: m candidates drawn without replacement from the policy, as the m largest of
   `g(a) + logit(a)` with g standard Gumbel noise (`gumbel_scale` 0: the policy's m most probable).
2. Sequential halving over ceil(log2 m) rounds: each round every surviving candidate gets the same number of
   simulations, and the better half (by `g + logit + sigma(q)`) goes on, until two are left.
3. Common random numbers: in a round, every candidate is simulated from the same determinizations and the same
   chance (one seed per simulation fixes the determinization, the dice and draws inside `apply`, and the rollout's
   moves), so survivors are compared on paired differences, not on the luck of their samples.
4. The choice: the survivor with the largest `logit + sigma(q)`, sigma(q) = (c_visit + max visits) * c_scale * q,
   q the mean result of its simulations (in [0, 1], `ai.outcome`). Every survivor was simulated, so its "completed
   Q" is its own mean.

A simulation applies the candidate on a determinization, plays at most `rollout_depth` (within the game's
`max_rollout_depth`) uniform moves, and values the position as the levels' search does (the game's fitted win
model, `ai.learned`, with `evaluation="learned"`; else the heuristic's projection), or by the real result if the
game ended.

Honest as every search here: the logits come from the seat's view (`ai.policy.features`), every simulation starts
from `state.determinize(seat, ...)`, and the seeds come from the rng the bot is handed, so the bot is deterministic
from that rng and never reads another seat's cards.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass

from ai.bot import Bot, Budget
from ai.heuristics import Heuristic, for_game
from ai.learned import load_model
from ai.outcome import WIN_WEIGHT, estimated_rewards, terminal_rewards
from engine.core import Action, State


@dataclass(frozen=True, slots=True)
class GumbelConfig:
    """The root's settings. `simulations` is the default budget (a `Budget`'s iteration cap replaces it)."""

    #: A policy model file in `ai/policy/models` (its scores are the logits), of the game being played.
    policy: str = "bs2-r5.npz"
    simulations: int = 200
    #: m: how many candidates the Gumbel-top-m draw keeps (fewer when fewer actions are legal).
    considered: int = 8
    #: The Gumbel noise's scale in the draw and the halving (1: the paper's; 0: the policy's top m, no noise).
    gumbel_scale: float = 1.0
    c_visit: float = 50.0
    c_scale: float = 1.0
    #: Uniform moves after the candidate before the leaf is valued (capped by the game's `max_rollout_depth`).
    rollout_depth: int | None = 30
    #: "learned" (the game's fitted win model where it has one) or "projection" (the heuristic's).
    evaluation: str = "learned"
    #: The win share's part of a result (`ai.outcome`); None: `WIN_WEIGHT`.
    win_weight: float | None = None


def halving_schedule(candidates: int, simulations: int) -> list[tuple[int, int]]:
    """(candidates, simulations each) per round of sequential halving: ceil(log2 m) rounds, each about an equal
    share of `simulations`, the candidates halved (rounded up) after each round down to two; what the equal shares
    leave over goes to the last round. At least one simulation each, so a tiny budget still compares them all."""
    if candidates < 2:
        return [(candidates, max(1, simulations))] if candidates == 1 else []
    rounds = max(1, math.ceil(math.log2(candidates)))
    schedule = []
    left = candidates
    spent = 0
    for r in range(rounds):
        each = max(1, simulations // (rounds * left))
        schedule.append((left, each))
        spent += left * each
        if r < rounds - 1:
            left = max(2, math.ceil(left / 2))
    last_count, last_each = schedule[-1]
    extra = (simulations - spent) // last_count
    if extra > 0:
        schedule[-1] = (last_count, last_each + extra)
    return schedule


def sigma(q: float, max_visits: int, c_visit: float, c_scale: float) -> float:
    """Danihelka et al.'s monotone transform of a value in [0, 1] onto the logits' scale."""
    return (c_visit + max_visits) * c_scale * q


class GumbelBot(Bot):
    """A root-only search: Gumbel-top-m over the policy, sequential halving with common random numbers, the choice
    by logit + sigma(q) (see the module's docstring). In a game other than its policy's it plays the greedy rule,
    as the policy bot does."""

    def __init__(self, level: str = "gumbel", config: GumbelConfig | None = None):
        super().__init__()
        self.level = level
        self.config = config or GumbelConfig()

    def _choose(self, state: State, seat: int, actions: list[Action], rng: random.Random,
                budget: Budget | None) -> Action:
        from ai.greedy import GreedyBot
        from ai.policy import MODELS_DIR
        from ai.policy.bot import load_cached
        from ai.policy.features import action_features

        heuristic = for_game(state.game.name)
        model = load_cached(MODELS_DIR / self.config.policy)[0]
        if model.meta.get("game") != state.game.name or model.meta.get("play") is not None:
            return GreedyBot()._choose(state, seat, actions, rng, budget)
        if actions[-1].TYPE in heuristic.rule_kinds:
            return heuristic.choose(state.determinize(seat, rng), seat, actions, rng)
        logits = [float(x) for x in model.scores(action_features(state, seat, actions))]
        simulations = budget.iterations if budget is not None and budget.iterations else self.config.simulations
        choice, done = self.search(state, seat, actions, logits, rng, simulations, heuristic)
        self.stats.iterations = done
        return actions[choice]

    def search(self, state: State, seat: int, actions: list[Action], logits: list[float], rng: random.Random,
               simulations: int, heuristic: Heuristic) -> tuple[int, int]:
        """(index in `actions` of the choice, simulations played) for the given logits (one per action)."""
        config = self.config
        scale = config.gumbel_scale
        noise = [scale * -math.log(-math.log(rng.random() or 1e-300)) if scale > 0 else 0.0 for _ in actions]
        order = sorted(range(len(actions)), key=lambda i: noise[i] + logits[i], reverse=True)
        survivors = order[: min(config.considered, len(actions))]
        if len(survivors) == 1:
            return survivors[0], 0
        totals = {i: 0.0 for i in survivors}
        visits = 0  # every survivor has played every simulation so far: the same count for all
        model = load_model(heuristic.game, heuristic.FEATURES) if config.evaluation == "learned" else None
        win_weight = WIN_WEIGHT if config.win_weight is None else config.win_weight
        limit = config.rollout_depth
        if heuristic.max_rollout_depth is not None:
            limit = heuristic.max_rollout_depth if limit is None else min(limit, heuristic.max_rollout_depth)
        played = 0
        schedule = halving_schedule(len(survivors), simulations)
        for round_index, (count, each) in enumerate(schedule):
            survivors = survivors[:count]
            for _ in range(each):
                seed = rng.getrandbits(64)
                for i in survivors:
                    totals[i] += simulate(state, seat, actions[i], seed, heuristic, model, limit, win_weight)
                played += len(survivors)
            visits += each
            last = round_index == len(schedule) - 1
            value = {i: logits[i] + sigma(totals[i] / visits, visits, config.c_visit, config.c_scale)
                     + (0.0 if last else noise[i]) for i in survivors}
            survivors.sort(key=value.__getitem__, reverse=True)  # stable: a tie keeps the draw's order
        return survivors[0], played


def simulate(truth: State, seat: int, action: Action, seed: int, heuristic: Heuristic, model, limit: int | None,
             win_weight: float) -> float:
    """`seat`'s result of `action` on the determinization `seed` fixes, followed by at most `limit` uniform moves
    (their choices from the same seed), valued as the levels' search values its leaves."""
    rng = random.Random(seed)
    state = truth.determinize(seat, rng)  # consumes the same draws for every candidate: the rollout's stream after
    state.apply(seat, action)
    steps = 0
    while not state.is_over() and (limit is None or steps < limit):
        seats = state.to_act()
        mover = seats[0] if len(seats) == 1 else seats[rng.randrange(len(seats))]
        legal = state.legal_actions(mover)
        state.apply(mover, legal[rng.randrange(len(legal))])
        steps += 1
    if state.is_over():
        return terminal_rewards(state, win_weight)[seat]
    if model is not None:
        return model.rewards(heuristic.features(state), win_weight)[seat]
    return estimated_rewards(heuristic.projected_scores(state), heuristic.scale(state), win_weight)[seat]
