"""Fit a position value model (`ai.policy.value`) to labelling ledgers, with PyTorch on the CPU.

Two labels per ledger position, both from the seat's side of an afterstate (the value columns of its feature rows):
- the chosen action's **outcome**: the seat's final win credit (1, 0, or a tie's share);
- every well-visited action's **mean result** at the teacher's root (`values`, the search's own estimate of that
  afterstate, a counterfactual label: what the position is worth, not only what followed it), each position's
  such labels weighing `q_weight` in all, split by visits.
Loss: binary cross-entropy of the sigmoid of the output on these soft targets, plus (`rank_weight`) a position's
ranking of its own actions: the siblings' logits, centred on their visit-weighted mean, regress the centred logits of
their mean results (a search compares siblings at its leaves; the outcome term alone learns who is ahead, and ranked
the teacher's choice first in 37% of held-out positions, 56% with rank weight 10). Every `holdout`-th game (by game
index) is held out; the card compares, on its chosen actions' outcomes, the model's log-loss with the game's fitted
win model (`ai.learned`, what the search's leaves use today), the heuristic projection's and the teacher's own
estimate's, so a model is used at the leaves only where it predicts results better.
"""

from __future__ import annotations

import json
import math
import sys
import time
from pathlib import Path

import numpy as np

from ai.heuristics import for_game
from ai.learned import load_model
from ai.policy.features import _spec, feature_names
from ai.policy.model import PolicyModel, file_digest
from ai.policy.value import value_columns, value_feature_names
from research.train.ledger import read_positions


def load_value_data(paths: list[Path], min_visits: int = 20) -> dict:
    """Per position: the value columns of its rows, the chosen index, the seat's outcome credit, and the rows'
    mean results and visits (rows below `min_visits` or never valued get no mean-result label)."""
    data: dict = {"x": [], "chosen": [], "outcome": [], "q": [], "qw": [], "games": [], "game": None,
                  "players": set(), "deals": set(), "codes": set(), "versions": set()}
    for path in paths:
        for record in read_positions(path):
            game = record.get("game", "blueskies")
            if data["game"] is None:
                data["game"] = game
                columns = value_columns(game)
            if game != data["game"]:
                raise SystemExit(f"ledgers mix {data['game']} and {game}")
            if "visits" not in record or "outcome" not in record:
                continue
            rows = np.asarray(record["features"], dtype=np.float64)[:, columns]
            visits = np.asarray(record["visits"], dtype=np.float64)
            values = record.get("values") or [None] * len(visits)
            labelled = np.array([v is not None and n >= min_visits for v, n in zip(values, visits, strict=True)])
            q = np.array([v if v is not None else 0.0 for v in values], dtype=np.float64)
            data["x"].append(rows)
            data["chosen"].append(int(record["chosen"]))
            data["outcome"].append(float(record["outcome"]["credit"][record["seat"]]))
            data["q"].append(q)
            data["qw"].append(np.where(labelled, visits, 0.0))
            data["games"].append((record.get("run", ""), int(record["game_index"])))
            data["players"].add(len(record.get("players", [0, 0])))
            data["deals"].add(int(record["deal"]))
            data["codes"].add(record["code"])
            data["versions"].add(record["feature_version"])
    if not data["x"]:
        raise SystemExit(f"no labelled positions in {', '.join(map(str, paths))}")
    return data


def _log_loss(p: np.ndarray, y: np.ndarray) -> float:
    p = np.clip(p, 1e-6, 1 - 1e-6)
    return float(-(y * np.log(p) + (1 - y) * np.log(1 - p)).mean())


def baseline_predictions(game: str, rows: np.ndarray) -> dict[str, np.ndarray]:
    """2-player win chances of the seats of value rows by today's leaf evaluations: the fitted conditional-logit
    win model (`ai.learned`) and the heuristic projection over its scale (`ai.outcome.estimated_rewards`)."""
    names = value_feature_names(game)
    base = for_game(game).FEATURES
    width = len(base)
    out: dict[str, np.ndarray] = {}
    win_model = load_model(game, base)
    if win_model is not None:
        w = np.asarray(win_model.weights)
        out["fitted_win_model"] = 1 / (1 + np.exp(-(rows[:, :width] @ w - rows[:, width: 2 * width] @ w)))
    if game == "blueskies":  # projection scale 4 + 2 x rounds left, margin in tens of points
        margin = rows[:, names.index("margin")] * _spec(game)[2]
        scale = 4.0 + 2.0 * rows[:, -1]
        out["projection"] = 1 / (1 + np.exp(-margin / scale))
    return out


def sibling_metrics(model: PolicyModel, data: dict, index: list[int]) -> dict:
    """How the model ranks a position's actions (what a search's leaves compare): top-1 agreement with the teacher's
    choice, and the teacher's mean result given up by the model's best well-visited action against the best one."""
    agree, regret = [], []
    for i in index:
        logits = model.scores(data["x"][i])
        agree.append(float(np.argmax(logits) == data["chosen"][i]))
        labelled = data["qw"][i] > 0
        if labelled.sum() >= 2:
            q = data["q"][i][labelled]
            regret.append(float(q.max() - q[np.argmax(logits[labelled])]))
    return {"test_top1_agreement": round(float(np.mean(agree)), 4),
            "test_mean_result_regret": round(float(np.mean(regret)), 4) if regret else None}


def fit_value(ledgers: list[Path], out: Path, hidden: int = 32, epochs: int = 600, lr: float = 3e-3,
              weight_decay: float = 1e-4, holdout: int = 5, seed: int = 0, q_weight: float = 1.0,
              min_visits: int = 20, threads: int = 1, rank_weight: float = 0.0) -> dict:
    """Train, keep the epoch with the best held-out outcome log-loss, write `out` (.npz) and its card."""
    import torch

    torch.manual_seed(seed)
    torch.set_num_threads(threads)
    data = load_value_data(ledgers, min_visits)
    game = data["game"]
    test = [i for i, (_run, g) in enumerate(data["games"]) if g % holdout == 0]
    train = [i for i, (_run, g) in enumerate(data["games"]) if g % holdout != 0]
    chosen_x = np.stack([data["x"][i][data["chosen"][i]] for i in range(len(data["x"]))])
    outcome = np.asarray(data["outcome"])
    flat = np.concatenate([data["x"][i] for i in train])
    mean, std = flat.mean(axis=0), flat.std(axis=0)
    std[std < 1e-6] = 1.0

    def tensors(index: list[int]) -> dict:
        qx, qy, qw, group = [], [], [], []
        for i in index:
            w = data["qw"][i]
            if w.sum() > 0:
                keep = w > 0
                qx.append(data["x"][i][keep])
                qy.append(data["q"][i][keep])
                qw.append(w[keep] / w.sum())
                group.append(np.full(int(keep.sum()), len(group)))
        if not qx:  # no edge visited enough: the outcomes alone
            qx, qy, qw, group = [np.zeros((0, len(mean)))], [np.zeros(0)], [np.zeros(0)], [np.zeros(0, int)]
        f = lambda a: torch.from_numpy(((a - mean) / std).astype(np.float32))  # noqa: E731
        return {"x": f(chosen_x[index]), "y": torch.from_numpy(outcome[index].astype(np.float32)),
                "qx": f(np.concatenate(qx)), "qy": torch.from_numpy(np.concatenate(qy).astype(np.float32)),
                "qw": torch.from_numpy(np.concatenate(qw).astype(np.float32)),
                "group": torch.from_numpy(np.concatenate(group).astype(np.int64)), "groups": len(group)}

    btr, bte = tensors(train), tensors(test)
    width = btr["x"].shape[-1]
    net = (torch.nn.Sequential(torch.nn.Linear(width, hidden), torch.nn.Tanh(), torch.nn.Linear(hidden, 1))
           if hidden else torch.nn.Sequential(torch.nn.Linear(width, 1)))
    opt = torch.optim.Adam(net.parameters(), lr=lr, weight_decay=weight_decay)
    bce = torch.nn.functional.binary_cross_entropy_with_logits

    def loss_of(b: dict) -> tuple[torch.Tensor, torch.Tensor]:
        outcome_loss = bce(net(b["x"]).squeeze(-1), b["y"])
        q_logit = net(b["qx"]).squeeze(-1)
        q_loss = (bce(q_logit, b["qy"], reduction="none") * b["qw"]).sum() / len(b["y"])
        total = outcome_loss + q_weight * q_loss
        if rank_weight:  # siblings' logits, centred on their visit-weighted mean, regress the centred logit(Q)
            target = torch.logit(b["qy"].clamp(0.02, 0.98))
            centre = lambda v: v - torch.zeros(b["groups"]).index_add(0, b["group"], v * b["qw"])[b["group"]]  # noqa
            rank_loss = (b["qw"] * (centre(q_logit) - centre(target)) ** 2).sum() / max(1, b["groups"])
            total = total + rank_weight * rank_loss
        return total, outcome_loss

    best = (float("inf"), None, -1)
    started = time.process_time()
    for epoch in range(epochs):
        opt.zero_grad()
        loss_of(btr)[0].backward()
        opt.step()
        with torch.no_grad():
            held = float(loss_of(bte)[1])
        if held < best[0]:
            best = (held, {k: v.clone() for k, v in net.state_dict().items()}, epoch)
    net.load_state_dict(best[1])
    linears = [m for m in net if isinstance(m, torch.nn.Linear)]
    layers = [(m.weight.detach().double().numpy().copy(), m.bias.detach().double().numpy().copy()) for m in linears]
    model = PolicyModel(mean, std, layers)
    y = outcome[test]
    held_x = chosen_x[test]
    logit = model.scores(held_x)
    metrics = {
        "train_positions": len(train), "test_positions": len(test), "best_epoch": best[2], "epochs": epochs,
        "fit_cpu_seconds": round(time.process_time() - started, 1),
        "test_outcome_log_loss": {"value_model": round(_log_loss(1 / (1 + np.exp(-logit)), y), 4),
                                  "constant": round(_log_loss(np.full(len(y), y.mean()), y), 4),
                                  "teacher_mean_result": round(_log_loss(
                                      np.array([data["q"][i][data["chosen"][i]] for i in test]), y), 4)},
    }
    for name, p in baseline_predictions(game, held_x).items():
        metrics["test_outcome_log_loss"][name] = round(_log_loss(p, y), 4)
    metrics["test_outcome_accuracy"] = round(float(np.mean((logit > 0) == (y > 0.5))), 4)
    metrics.update(sibling_metrics(model, data, test))
    players = sorted(data["players"])
    model.meta = {
        "game": game, "labels": "value", "players_valued": players, "feature_version": _spec(game)[0],
        "value_features": value_feature_names(game), "row_features": feature_names(game), "hidden": hidden,
        "data": {"ledgers": [str(p) for p in ledgers], "ledger_sha256": {str(p): file_digest(p) for p in ledgers},
                 "positions": len(data["x"]), "games": len(data["deals"]), "codes": sorted(data["codes"]),
                 "feature_versions": sorted(data["versions"])},
        "holdout": f"game_index % {holdout} == 0", "metrics": metrics,
        "command": "python -m research.train " + " ".join(sys.argv[1:]) if sys.argv[1:2] == ["fit-value"] else "",
        "check": {"features": held_x[0].tolist(), "logit": float(logit[0])},
        "torch": torch.__version__, "seed": seed, "lr": lr, "weight_decay": weight_decay, "q_weight": q_weight,
        "min_visits": min_visits, "rank_weight": rank_weight,
    }
    with torch.no_grad():  # the training side's own logit of the check row, for the numpy side to be checked
        model.meta["check"]["torch_logit"] = float(net(torch.from_numpy(((held_x[:1] - mean) / std).astype(
            np.float32))).squeeze())
    if not math.isclose(model.meta["check"]["torch_logit"], model.meta["check"]["logit"], abs_tol=1e-3):
        raise SystemExit("numpy and torch disagree on the check row")
    out.parent.mkdir(parents=True, exist_ok=True)
    model.save(out)
    card = {**model.meta, "model": str(out), "model_sha256": file_digest(out)}
    out.with_suffix(".card.json").write_text(json.dumps(card, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return card
