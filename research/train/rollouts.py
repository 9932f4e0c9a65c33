"""OpenSky plan A labels: each sampled decision's candidates valued by paired greedy playouts to the end of the
game under common random numbers, the playouts allocated by successive halving.

Why: in OpenSky the search's visit counts are noise at 1,000 iterations (learned-bots.md), so the labels are
counterfactual action values instead: how much more final margin an action earns than the rule's own choice when
everyone plays the rule afterwards (the rollout algorithm's one-step improvement), measured with the same
determinization and dice for every candidate in a round, so the differences are measured, not the luck. The
candidates are the rule's best-ranked `top` plus `extra` random others; each stage plays every surviving candidate
`rounds x 2**stage` more rounds and keeps the better half (the rule's choice is the baseline and always stays).
Positions come from greedy self-play with `epsilon` random moves on training deals; sealed bids (answered by the
rule at every level, and simultaneous) are not labelled.
"""

from __future__ import annotations

import random
import time

import engine
from ai.heuristics import for_game
from ai.ismcts import ISMCTSBot, final_margin, mean_and_error
from ai.policy.features import action_features, feature_version
from engine.core import Action, State

#: OpenSky deals of the labelling job: after Blue Skies' (research.train.label.TRAIN_DEAL_BASE), far above 2**31.
OS_DEAL_OFFSET = 1_000_000_000


def playout_margin(state: State, seat: int, action: Action, seed: int) -> float:
    """The seat's final margin over the best rival (thousands of points) after `action` and greedy play, from the
    determinization and dice `seed` fixes (`ISMCTSBot._playout_end`)."""
    heuristic = for_game(state.game.name)
    end = ISMCTSBot._playout_end(state, seat, action, seed, heuristic)
    return final_margin(end.scores(), seat) / 1000.0


def halving_labels(state: State, seat: int, legal: list[Action], rng: random.Random, top: int = 6, extra: int = 2,
                   rounds: int = 16, stages: int = 3) -> list[dict]:
    """Per candidate: its index in `legal`, rounds played, mean paired gain over the rule's choice and its standard
    error, mean margin. The first entry is the rule's choice (gain 0 by definition)."""
    heuristic = for_game(state.game.name)
    ranked = heuristic.ranked(state.determinize(seat, rng), seat, legal, rng)
    candidates = ranked[:top]
    others = ranked[top:]
    rng.shuffle(others)
    candidates += others[:extra]
    margins: dict[int, dict[int, float]] = {i: {} for i in range(len(candidates))}  # candidate -> round -> margin
    alive = list(range(len(candidates)))
    played_rounds = 0
    for stage in range(stages):
        for _ in range(rounds * 2**stage):
            seed = rng.getrandbits(64)
            for i in alive:
                margins[i][played_rounds] = playout_margin(state, seat, candidates[i], seed)
            played_rounds += 1
        if len(alive) <= 2:
            continue
        challengers = sorted(alive[1:], key=lambda i: -_gain(margins, i)[0])
        alive = [0, *challengers[: max(1, len(challengers) // 2)]]
    out = []
    for i, action in enumerate(candidates):
        gain, error = _gain(margins, i)
        values = list(margins[i].values())
        out.append({"action": legal.index(action), "rounds": len(values), "gain": round(gain, 5),
                    "se": None if error == float("inf") else round(error, 5),
                    "margin": round(sum(values) / len(values), 5)})
    return out


def _gain(margins: dict[int, dict[int, float]], i: int) -> tuple[float, float]:
    """Mean and standard error of candidate i's margin minus the rule's (candidate 0) over their common rounds."""
    rule = margins[0]
    diffs = [m - rule[r] for r, m in margins[i].items()]
    return mean_and_error(diffs) if diffs else (0.0, float("inf"))


def play_rollout_labelled_game(deal: int, game_index: int, code: str, run: str, players: int = 2,
                               every: int = 4, epsilon: float = 0.15, rounds: int = 16,
                               stages: int = 3, plan: str = "os2-rule-plus") -> tuple[list[dict], dict]:
    """One greedy self-play game of OpenSky (with `epsilon` random moves) on `deal`, every `every`-th decision with
    a choice (bids aside) labelled by `halving_labels`: its position records and game record (`research.train.ledger`),
    marked as `plan`'s."""
    state = engine.get("opensky").new(players, deal)
    heuristic = for_game("opensky")
    play_rng = random.Random(deal * 7919 + 17)
    label_rng = random.Random(deal * 104729 + 3)
    positions: list[dict] = []
    actions: list[list] = []
    step = 0
    choices = 0
    start = time.process_time()
    while not state.is_over():
        for seat in state.to_act():
            legal = state.legal_actions(seat)
            if not legal:
                continue
            if len(legal) > 1 and legal[-1].TYPE not in heuristic.rule_kinds:
                if choices % every == 0:
                    labels = halving_labels(state, seat, legal, label_rng, rounds=rounds, stages=stages)
                    positions.append({
                        "kind": "position", "run": run, "plan": plan, "game": "opensky",
                        "players": ["greedy+eps"] * players, "deal": deal, "game_index": game_index, "index": step,
                        "seat": seat, "legal": [a.to_json() for a in legal],
                        "features": [[round(x, 4) for x in row] for row in action_features(state, seat, legal)],
                        "feature_version": feature_version("opensky"), "candidates": labels,
                        "rule": labels[0]["action"], "code": code,
                    })
                choices += 1
            if len(legal) == 1:
                action = legal[0]
            elif play_rng.random() < epsilon:
                action = legal[play_rng.randrange(len(legal))]
            else:
                action = heuristic.choose(state.determinize(seat, play_rng), seat, legal, play_rng)
            actions.append([seat, action.to_json()])
            state.apply(seat, action)
            step += 1
    outcome = {"scores": state.scores(), "winners": state.winners()}
    for record in positions:
        record["outcome"] = outcome
    return positions, {"run": run, "plan": plan, "deal": deal, "game_index": game_index,
                       "actions": actions, "scores": state.scores(), "winners": state.winners(),
                       "positions": len(positions), "cpu_seconds": round(time.process_time() - start, 2),
                       "code": code}
