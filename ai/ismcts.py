"""Single-observer information-set MCTS (SO-ISMCTS, Cowling, Powley & Whitehouse 2012).

One tree per decision, grown from the observer's point of view:

- every iteration starts from a *fresh determinization*
  `state.determinize(observer, rng)`: the other seats' hidden cards and pending
  sealed choices are resampled, so the search never sees the truth;
- nodes are keyed by the sequence of decisions since the root, so one node
  stands for every determinization that reached it (an information set of the
  observer, open-loop over chance). Other seats' decisions are part of the
  key: sealed choices are public once revealed, and a move that stays hidden
  (a discard) is keyed by the action sampled in the determinization, the usual
  single-observer simplification (it never reads the true move); each seat's edges carry visits, total
  reward and an *availability count* (how often the action was legal when the
  node was visited), and selection is UCB1 with `ln(availability)` in place
  of `ln(parent visits)`, as actions are not always legal;
- chance (dice, draws) is sampled inside `apply` from the determinization's
  own RNG, which `determinize` reseeds;
- simultaneous sealed decisions (several seats in `to_act()`) are chosen
  together from the *same* node, each seat from its own edge table, before any
  of them is applied: no seat's choice is conditioned on another's pending
  choice, the observer's included. The child is keyed by the joint decision;
- other seats' decisions are opponent nodes in the same tree, each maximizing
  its own mover's result (see `ai.outcome`: win share plus rank share);
- after expanding one node, a random rollout plays at most `rollout_depth`
  decisions, then the position is valued by the game's fitted win model
  (`ai.learned`, with `evaluation="learned"`, the levels' setting) or by the
  heuristic's projected scores turned into normalized results
  (`ai.heuristics`), or by a learned value model (`value_model`,
  `ai.policy.value`; no level's setting: not measured better), or by the
  real result if the game ended.

At the root, the observer's edges get a progressive bias toward the `greedy`
level's choice (computed once, on a determinization): it is expanded first
and earns a PUCT-style bonus `prior_weight * sqrt(N) / (n + 1)` (N visits of
the root, n of that action), as AlphaZero's PUCT does with a one-hot policy
prior. Another action wins only once its mean result beats the greedy one's
by a margin that shrinks as the greedy action itself gets visited: a short,
noisy search stays close to the greedy rule, a long one can overrule it.

Opponent model (`prior_plies`): down to that many decisions below the root,
every node also gives the seat acting there, opponents included, the same
progressive bias toward the greedy prior's choice (`deep_prior_weight`),
computed once per node on the first determinization that reaches it (so
still only from information the observer has). Opponents are then searched
first where a sensible player would go, and the observer's replies are tested
against those moves before exotic ones; UCB still lets any move win.

Decisions left to the game's greedy rule (`rule_kinds`, OpenSky's sealed bids): the observer's
own are answered by the rule without a search, and inside the tree (`rule_in_tree`) every seat's
are played by it too, computed once per node and seat like the opponent model's prior. The tree
then does not branch on them, and the moves it searches are valued against bids made as the bot
itself makes them, not against the noise of a half-explored bid node.

Rollouts (`rollout_policy`): "random" plays uniform moves, cut at the game's
`max_rollout_depth`; "prior" lets every seat play the greedy prior (with
probability `rollout_epsilon` of a uniform move) for `policy_rollout_depth`
decisions. Both end in the heuristic evaluation.

Decisions settled by playouts instead (`playout_kinds`; no game's default, an option for
experiments): the rule's best-ranked candidates (`Heuristic.ranked`) are each played out to the end
with every seat on the greedy rule, in rounds that give all candidates the same determinization and
dice (common random numbers), and another candidate replaces the rule's choice only if its mean paired
gain clears `playout_confidence` standard errors. Against greedy opponents this is the rollout
algorithm's one-step policy improvement; in OpenSky it measured no better than the tree
(bench/RESULTS.md, sixth session).

The chosen action is the observer's most visited root edge. The search stops early once that edge
cannot be overtaken within what is left of the budget (`early_stop`, as Leela Chess Zero's "smart
pruning"): under an iteration cap the choice is exactly the one the full search would make, and
under a time limit it is as long as the iteration rate holds.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ai.bot import Bot, Budget
from ai.heuristics import Heuristic, for_game
from ai.learned import WinModel, load_model
from ai.outcome import WIN_WEIGHT, estimated_rewards, terminal_rewards
from engine.core import Action, IllegalAction, State


@dataclass(frozen=True, slots=True)
class SearchConfig:
    """A level's search settings. `budget` is the default think limit."""

    budget: Budget
    exploration: float = 0.7
    rollout_depth: int | None = 30
    #: "random": uniform rollouts, cut at the game's `max_rollout_depth`; "prior": every seat plays the
    #: game's greedy prior (an opponent model) for `policy_rollout_depth` decisions, with probability
    #: `rollout_epsilon` of a uniform move instead.
    rollout_policy: str = "random"
    policy_rollout_depth: int = 8
    rollout_epsilon: float = 0.1
    #: Bias toward the greedy level's choice at the root, PUCT-style:
    #: prior_weight * sqrt(root visits) / (visits of that action + 1).
    prior_weight: float = 0.3
    #: Tree depth (in decisions from the root) down to which every node gets the greedy prior for the
    #: seat acting there, opponents included (an opponent model); 1 = the observer's root decision only.
    prior_plies: int = 1
    #: Prior weight at nodes below the root (opponent model strength).
    deep_prior_weight: float = 0.3
    #: Stop once the most visited root action cannot be overtaken in what is left of the budget
    #: (the rest of the search could not change the choice); checked every `EARLY_STOP_EVERY` iterations.
    early_stop: bool = True
    #: Decision kinds (the `TYPE` of the last legal action) left to the game's greedy rule without a
    #: search: where that rule already computes its answer from public odds (a sealed bid's win
    #: chances), a short noisy search does worse. None: the game's own choice (`Heuristic.rule_kinds`).
    rule_kinds: frozenset[str] | None = None
    #: Whether decisions of a rule kind inside the tree are also played by the rule (once per node and
    #: seat, as the opponent model's prior is), rather than searched: every seat's future sealed bids
    #: then follow the rule the observer itself bids by, and the tree does not branch on them.
    rule_in_tree: bool = True
    #: How a cut-off leaf is valued: "projection" (the heuristic's projected scores over its scale) or
    #: "learned" (the game's fitted win model, `ai.learned`, where the game has one; else projection).
    evaluation: str = "projection"
    #: Decision kinds settled by paired greedy playouts instead of the tree (see `_playout_search`).
    #: None: the game's own choice (`Heuristic.playout_kinds`).
    playout_kinds: frozenset[str] | None = None
    #: How many of the rule's best-ranked actions a playout search compares.
    playout_candidates: int = 4
    #: Most playouts one playout search plays (whatever the budget), so it stays reproducible.
    max_playouts: int = 96
    #: What a playout is worth to the observer: "result" (win share and rank, as the tree's leaves)
    #: or "margin" (its final score minus the best other seat's, in thousands of points).
    playout_reward: str = "result"
    #: Another candidate replaces the rule's choice only if its mean paired gain over it exceeds this
    #: many standard errors (picking the best of several noisy means otherwise favours noise).
    playout_confidence: float = 1.0
    #: The win share's part of every result the search backs up (the rest is the rank share; see
    #: `ai.outcome`). None: `ai.outcome.WIN_WEIGHT`. In 2-player games both shares are the same.
    win_weight: float | None = None
    #: Keep the chosen action's subtree for the seat's next decision when nothing new was seen in between
    #: (see `ISMCTSBot._reused_root`). None: the game's own choice (`Heuristic.reuse_tree`).
    reuse_tree: bool | None = None
    #: A learned policy (a model file in `ai/policy/models`, e.g. "bs2-r3.npz") as the prior of the observer's
    #: root decision, PUCT-style: every root action gets `policy_weight * P(a) * sqrt(N) / (n + 1)` (P the
    #: model's softmax over the legal actions, from the observer's view only) and untried actions are expanded
    #: most probable first; it replaces the greedy prior there. None: the greedy prior (`prior_weight`).
    policy_prior: str | None = None
    policy_weight: float = 1.0
    #: A learned value model (a model file in `ai/policy/models` whose card's labels are "value",
    #: `ai.policy.value`) valuing the cut-off leaves, in its game at the player counts it was fitted at; it
    #: replaces `evaluation` there. None: `evaluation`.
    value_model: str | None = None


class Node:
    """One information-set node: per-seat edge statistics and children by decision key."""

    __slots__ = ("children", "edges", "expanded", "priors")

    def __init__(self) -> None:
        # seat -> action -> [visits, total reward, availability]
        self.edges: dict[int, dict[Action, list]] = {}
        self.children: dict[object, Node] = {}
        # seat -> the greedy prior's choice, computed on the first determinization that reached the node
        self.priors: dict[int, Action | None] | None = None
        # seat -> (legal actions, their edges in that order), kept once every one of them has an edge:
        # most nodes see the same legal list on every visit, and one list comparison then replaces a
        # dictionary lookup (an action hash) per legal action
        self.expanded: dict[int, tuple[list[Action], list[list]]] | None = None


def _select(
    node: Node, seat: int, legal: list[Action], rng: random.Random, c: float, prior: Action | None = None,
    weight: float = 0.0, policy: dict[Action, float] | None = None,
) -> Action:
    """UCB1 with availability counts; an untried legal action is expanded first (at random,
    the `prior` action before any other), and `prior` gets a bonus weight / (visits + 1). With a `policy`
    (action -> probability), every action gets weight * P(a) * sqrt(N) / (visits + 1) instead, and the most
    probable untried action is expanded first (PUCT)."""
    expanded = node.expanded
    cached = None if expanded is None else expanded.get(seat)
    if cached is not None and cached[0] == legal:
        found = cached[1]
        for edge in found:
            edge[2] += 1
    else:
        edges = node.edges.get(seat)
        if edges is None:
            edges = node.edges[seat] = {}
        untried: list[Action] = []
        found = []  # the tried legal actions' edges, in `legal` order
        get = edges.get
        for action in legal:
            got = get(action)
            if got is None:
                untried.append(action)
            else:
                got[2] += 1
                found.append(got)
        if untried:
            if policy is not None:
                action = max(untried, key=lambda a: policy.get(a, 0.0))
            else:
                action = prior if prior is not None and prior in untried else untried[rng.randrange(len(untried))]
            edges[action] = [0, 0.0, 1]
            return action
        if expanded is None:
            expanded = node.expanded = {}
        expanded[seat] = (legal, found)
    best = legal[0]
    best_value = -1.0
    bonus = weight * math.sqrt(sum(edge[0] for edge in found)) if prior is not None or policy is not None else 0.0
    log = math.log
    sqrt = math.sqrt
    for action, (visits, total, avail) in zip(legal, found):
        if visits == 0:
            return action
        value = total / visits + c * sqrt(log(avail) / visits)
        if policy is not None:
            value += bonus * policy.get(action, 0.0) / (visits + 1)
        elif action == prior:
            value += bonus / (visits + 1)
        if value > best_value:
            best, best_value = action, value
    return best


EARLY_STOP_EVERY = 32


def final_margin(scores: Sequence[float], seat: int) -> float:
    """A seat's score minus the best other seat's, in points (of a finished game's `scores()`)."""
    return float(scores[seat] - max(x for i, x in enumerate(scores) if i != seat))


def mean_and_error(values: list[float]) -> tuple[float, float]:
    """Sample mean and its standard error (infinite from fewer than two values)."""
    n = len(values)
    mean = sum(values) / n
    if n < 2:
        return mean, math.inf
    variance = sum((v - mean) ** 2 for v in values) / (n - 1)
    return mean, math.sqrt(variance / n)


def _iterations_left(done: int, cap: int | None, start: float, deadline: float | None) -> float:
    """How many more iterations the budget allows: the cap's remainder, or the time left at the rate so far."""
    left = float("inf") if cap is None else float(cap - done)
    if deadline is not None:
        now = time.perf_counter()
        rate = done / max(now - start, 1e-9)
        left = min(left, rate * max(0.0, deadline - now))
    return left


def _lead_is_safe(edges: dict[Action, list], left: float) -> bool:
    """Whether the most visited edge stays strictly most visited even if every remaining iteration went
    to the runner-up (so the choice, which is by visits, is already decided)."""
    first = second = 0
    for visits, _total, _avail in edges.values():
        if visits > first:
            first, second = visits, first
        elif visits > second:
            second = visits
    return first - second > left


class ISMCTSBot(Bot):
    """Levels `mcts-easy`, `mcts-normal`, `mcts-hard` differ only in their `SearchConfig`."""

    def __init__(self, level: str, config: SearchConfig, by_game: dict[str, SearchConfig] | None = None):
        super().__init__()
        self.level = level
        self.config = config
        #: The level's settings in games that play it otherwise (the game's `ai.games` profile); `config` elsewhere.
        #: A worker's bot is made before it knows its game, so each decision picks its settings (`_use_config`).
        self.base_config = config
        self.by_game: dict[str, SearchConfig] = dict(by_game) if by_game else {}
        self._model: WinModel | None = None
        #: The decision kinds the current search leaves to the game's greedy rule.
        self._rule_kinds: frozenset[str] = frozenset()
        self._win_weight = WIN_WEIGHT if config.win_weight is None else config.win_weight
        #: The subtree kept from the last decision, with the view of the seat it expects next time.
        self._kept: tuple[dict, Node] | None = None
        #: Set `record_root` to keep the last search's tree in `last_root`, for tools and tests that inspect
        #: it (a compiled class cannot be subclassed to catch it); off, a cached bot holds no finished tree.
        self.record_root = False
        self.last_root: Node | None = None
        #: The learned root prior of the search under way (`SearchConfig.policy_prior`), or None.
        self._root_policy: dict[Action, float] | None = None
        #: The learned leaf value of the search under way (`SearchConfig.value_model`, an
        #: `ai.policy.value.ValueModel`), or None.
        self._value: Any = None

    def _choose(
        self, state: State, seat: int, actions: list[Action], rng: random.Random, budget: Budget | None
    ) -> Action:
        heuristic = for_game(state.game.name)
        self._use_config(state.game.name)
        budget = budget or self._level_budget(heuristic)
        rule_kinds = heuristic.rule_kinds if self.config.rule_kinds is None else self.config.rule_kinds
        self._rule_kinds = rule_kinds
        if actions[-1].TYPE in rule_kinds:
            return heuristic.choose(state.determinize(seat, rng), seat, actions, rng)
        playout_kinds = heuristic.playout_kinds if self.config.playout_kinds is None else self.config.playout_kinds
        if actions[-1].TYPE in playout_kinds:
            return self._playout_search(state, seat, actions, rng, heuristic, budget)
        reuse = heuristic.reuse_tree if self.config.reuse_tree is None else self.config.reuse_tree
        root = self._reused_root(state, seat) if reuse else Node()
        if self.record_root:
            self.last_root = root
        self._kept = None
        self._model = None
        if self.config.evaluation == "learned":
            self._model = load_model(heuristic.game, heuristic.FEATURES)
        self._value = self._learned_value(state)
        deadline = None if budget.seconds is None else time.perf_counter() + budget.seconds
        cap = budget.iterations
        if deadline is None and cap is None:
            cap = 1000
        prior = None
        self._root_policy = self._learned_prior(state, seat, actions)
        if self._root_policy is None and self.config.prior_weight > 0:
            prior = heuristic.prior(state.determinize(seat, rng), seat, actions, rng)
        iterations = 0
        start = time.perf_counter()
        early_stop = self.config.early_stop
        while True:
            self._iterate(root, state, seat, rng, heuristic, prior)
            iterations += 1
            if cap is not None and iterations >= cap:
                break
            if deadline is not None and time.perf_counter() >= deadline:
                break
            if early_stop and iterations % EARLY_STOP_EVERY == 0:
                left = _iterations_left(iterations, cap, start, deadline)
                if _lead_is_safe(root.edges.get(seat, {}), left):
                    break
        self.stats.iterations = iterations
        edges = root.edges.get(seat, {})
        best = actions[0]
        best_key = (-1, -1.0)
        for action in actions:
            edge = edges.get(action)
            if edge is None:
                continue
            key = (edge[0], edge[1] / edge[0] if edge[0] else 0.0)
            if key > best_key:
                best, best_key = action, key
        if reuse:
            self._keep(root, state, seat, best, rng)
        return best

    def _reused_root(self, state: State, seat: int) -> Node:
        """The subtree kept from this bot's last decision if `seat`'s view is the one it expected, else a
        new root. Equal views mean the same information set: the kept node's statistics were gathered on
        determinizations of exactly this set, so reusing them is as honest as searching afresh."""
        kept = self._kept
        if kept is not None and kept[0] == state.view(seat):
            self.stats.extra["reused_visits"] = float(sum(edge[0] for edge in kept[1].edges.get(seat, {}).values()))
            return kept[1]
        return Node()

    def _keep(self, root: Node, state: State, seat: int, action: Action, rng: random.Random) -> None:
        """Keep the chosen action's subtree if the seat decides again straight after it, with the view it
        will then have. An action whose outcome is random (a draw, dice) yields one sampled view, which the
        real one matches only when the same thing happened; then the subtree is reused, else dropped."""
        child = root.children.get((seat, action))
        if child is None or not child.edges.get(seat):
            return
        after = state.determinize(seat, rng)
        after.apply(seat, action)
        if after.to_act() == [seat]:
            self._kept = (after.view(seat), child)

    def _playout_search(
        self, state: State, seat: int, actions: list[Action], rng: random.Random, heuristic: Heuristic,
        budget: Budget,
    ) -> Action:
        """Compare the rule's best-ranked candidates by playing the game out with every seat on the
        greedy rule, all candidates from the same determinization and the same dice each round
        (common random numbers: the differences between candidates are measured, not the luck of
        the round). Against opponents that play the rule this is the rollout algorithm's policy
        improvement over the rule; the rule's own choice wins ties."""
        config = self.config
        candidates = heuristic.ranked(state.determinize(seat, rng), seat, actions, rng)[: config.playout_candidates]
        if len(candidates) < 2:
            self.stats.iterations = 0
            return candidates[0]
        cap = config.max_playouts if budget.iterations is None else min(config.max_playouts, budget.iterations)
        deadline = None if budget.seconds is None else time.perf_counter() + budget.seconds
        gains: list[list[float]] = [[] for _ in candidates]  # per round, each candidate's reward minus the rule's
        playouts = 0
        while True:
            seed = rng.getrandbits(64)
            rewards = [self._playout(state, seat, action, seed, heuristic) for action in candidates]
            for i, reward in enumerate(rewards):
                gains[i].append(reward - rewards[0])
            playouts += len(candidates)
            if playouts + len(candidates) > cap:
                break
            if deadline is not None and time.perf_counter() >= deadline:
                break
        self.stats.iterations = playouts
        best, best_gain = 0, 0.0
        for i in range(1, len(candidates)):
            mean, error = mean_and_error(gains[i])
            if mean > best_gain and mean > config.playout_confidence * error:
                best, best_gain = i, mean
        return candidates[best]

    def _playout(self, truth: State, observer: int, action: Action, seed: int, heuristic: Heuristic) -> float:
        """The observer's reward for `action` followed by greedy play to the end, from the
        determinization and dice that `seed` fixes."""
        state = self._playout_end(truth, observer, action, seed, heuristic)
        if self.config.playout_reward == "margin":
            return final_margin(state.scores(), observer) / 1000.0
        return terminal_rewards(state, self._win_weight)[observer]

    @staticmethod
    def _playout_end(truth: State, observer: int, action: Action, seed: int, heuristic: Heuristic) -> State:
        """The finished game after `action` and greedy play, from the determinization and dice `seed` fixes."""
        state = truth.determinize(observer, random.Random(seed))
        policy_rng = random.Random(seed ^ 0x5DEECE66D)
        state.apply(observer, action)
        steps = 0
        while not state.is_over():
            steps += 1
            if steps > state.game.max_game_length:
                raise RuntimeError(f"{state.game.name} playout did not end within {steps} steps")
            for s in state.to_act():
                legal = state.legal_actions(s)
                if legal:
                    state.apply(s, legal[0] if len(legal) == 1 else heuristic.prior(state, s, legal, policy_rng))
        return state

    def _use_config(self, game: str) -> None:
        """Search `game` with its own settings (`by_game`), else the level's; a kept tree from other settings is
        dropped."""
        config = self.by_game.get(game, self.base_config)
        if config is not self.config:
            self.config = config
            self._win_weight = WIN_WEIGHT if config.win_weight is None else config.win_weight
            self._kept = None

    def _level_budget(self, heuristic: Heuristic) -> Budget:
        """The level's budget, its iteration cap lowered to the game's `max_search_iterations`."""
        budget = self.config.budget
        limit = heuristic.max_search_iterations
        if limit is None or (budget.iterations is not None and budget.iterations <= limit):
            return budget
        return Budget(seconds=budget.seconds, iterations=limit)

    def _learned_prior(self, state: State, seat: int, actions: list[Action]) -> dict[Action, float] | None:
        """The root's learned prior (`SearchConfig.policy_prior`) where its model is of this game, else None.
        Honest: the model's features come from the seat's view only (`ai.policy.features`)."""
        name = self.config.policy_prior
        if name is None:
            return None
        from ai.policy import MODELS_DIR
        from ai.policy.bot import load_cached
        from ai.policy.features import action_features

        model = load_cached(MODELS_DIR / name)[0]
        if model.meta.get("game") != state.game.name or model.meta.get("play") is not None:
            return None
        probs = model.policy(action_features(state, seat, actions))
        return {a: float(p) for a, p in zip(actions, probs)}

    def _learned_value(self, state: State) -> Any:
        """The leaves' learned value model (`SearchConfig.value_model`) where it was fitted for this game and
        player count, else None (the leaves keep `evaluation`)."""
        name = self.config.value_model
        if name is None:
            return None
        from ai.policy.value import load_value

        model = load_value(name)
        if model.game != state.game.name or state.num_players not in model.players:
            return None
        return model

    @staticmethod
    def _node_prior(
        node: Node, state: State, seat: int, legal: list[Action], rng: random.Random, heuristic: Heuristic
    ) -> Action | None:
        """The greedy prior of `seat` at `node`, computed once on the determinization that first got there."""
        priors = node.priors
        if priors is None:
            priors = node.priors = {}
        if seat not in priors:
            priors[seat] = heuristic.prior(state, seat, legal, rng)
        choice = priors[seat]
        return choice if choice in legal else None

    @staticmethod
    def _finish_turn(state: State, mover: int, rng: random.Random, heuristic: Heuristic, limit: int) -> None:
        """Complete `mover`'s turn with the greedy prior, so a leaf reached mid-turn is valued as the
        position the turn leads to, not as a half-made decision (or one finished at random)."""
        steps = 0
        while steps < limit and not state.is_over() and state.to_act() == [mover]:
            legal = state.legal_actions(mover)
            state.apply(mover, legal[0] if len(legal) == 1 else heuristic.prior(state, mover, legal, rng))
            steps += 1

    def _iterate(
        self, root: Node, truth: State, observer: int, rng: random.Random, heuristic: Heuristic, prior: Action | None
    ) -> None:
        config = self.config
        c = config.exploration
        state = truth.determinize(observer, rng)
        node = root
        depth = 0
        by_rule = self._rule_kinds if config.rule_in_tree else frozenset()
        path: list[tuple[Node, int, Action]] = []
        # Selection and expansion.
        while not state.is_over():
            seats = state.to_act()
            picks = []
            for s in seats:
                legal = state.legal_actions(s)
                if by_rule and len(legal) > 1 and legal[-1].TYPE in by_rule:
                    ruled = self._node_prior(node, state, s, legal, rng, heuristic)
                    if ruled is not None:  # the rule's choice as the only candidate: one edge, never a branch
                        picks.append((s, _select(node, s, [ruled], rng, c, ruled)))
                        continue
                if node is root and s == observer and self._root_policy is not None:
                    picks.append((s, _select(node, s, legal, rng, c, None, config.policy_weight, self._root_policy)))
                    continue
                if node is root and s == observer:
                    s_prior, s_weight = prior, config.prior_weight
                elif depth < config.prior_plies and len(legal) > 1:
                    s_prior = self._node_prior(node, state, s, legal, rng, heuristic)
                    s_weight = config.deep_prior_weight
                else:
                    s_prior, s_weight = None, 0.0
                picks.append((s, _select(node, s, legal, rng, c, s_prior, s_weight)))
            if len(picks) == 1:
                seat, action = picks[0]
                path.append((node, seat, action))
                state.apply(seat, action)
                key: object = picks[0]
            else:
                # Simultaneous choices: every seat chose from the same node before any is applied.
                for s, action in picks:
                    path.append((node, s, action))
                    try:
                        state.apply(s, action)
                    except IllegalAction:  # another seat's apply changed this seat's options
                        legal = state.legal_actions(s)
                        if not legal:
                            continue
                        state.apply(s, legal[rng.randrange(len(legal))])
                key = tuple(picks)
            depth += 1
            child = node.children.get(key)
            if child is None:
                node.children[key] = Node()
                break
            node = child
        # Rollout.
        limit: int | None
        if config.rollout_policy == "turn" and path:
            self._finish_turn(state, path[-1][1], rng, heuristic, config.policy_rollout_depth)
            limit = 0
        elif config.rollout_policy == "prior":
            limit = config.policy_rollout_depth
        else:
            limit = config.rollout_depth
            cap = heuristic.max_rollout_depth
            if cap is not None:
                limit = cap if limit is None else min(limit, cap)
        steps = 0
        by_prior = config.rollout_policy == "prior"
        epsilon = config.rollout_epsilon
        while not state.is_over() and (limit is None or steps < limit):
            seats = state.to_act()
            seat = seats[0] if len(seats) == 1 else seats[rng.randrange(len(seats))]
            legal = state.legal_actions(seat)
            if by_prior and len(legal) > 1 and rng.random() >= epsilon:
                action = heuristic.prior(state, seat, legal, rng)
            else:
                action = legal[rng.randrange(len(legal))]
            state.apply(seat, action)
            steps += 1
        if state.is_over():
            rewards = terminal_rewards(state, self._win_weight)
        elif self._value is not None:
            rewards = self._value.rewards(state, heuristic, self._win_weight)
        elif self._model is not None:
            rewards = self._model.rewards(heuristic.features(state), self._win_weight)
        else:
            rewards = estimated_rewards(heuristic.projected_scores(state), heuristic.scale(state), self._win_weight)
        # Backpropagation: each edge learns its own mover's result.
        for node_, seat, action in path:
            edge = node_.edges[seat][action]
            edge[0] += 1
            edge[1] += rewards[seat]
