"""Fit the afterstate action scorer to the teacher's root visit shares (cross-entropy of a softmax over the legal
actions), with PyTorch on the CPU, and write a numpy-loadable model (`ai.policy.model`) with its model card.

Why cross-entropy on visit shares: the search's whole root distribution says more than its single choice (the
chosen action gets a median 18% of root visits in Blue Skies), so the student learns the teacher's preferences
among the also-rans too. Held-out games (every `holdout`-th training game, by game index, never a position of a
game seen in training) give the figures the card reports: cross-entropy, top-1 agreement with the teacher's
choice, and the greedy rule's agreement on the same positions.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import numpy as np

from ai.policy.features import FEATURE_VERSION
from ai.policy.model import PolicyModel, file_digest
from ai.train.ledger import read_positions

#: Column of `margin_vs_best` (0 for the greedy rule's choices) in Blue Skies' action features.
MARGIN_VS_BEST = "margin_vs_best"


def load_positions(paths: list[Path], power: float = 1.0
                   ) -> tuple[list[np.ndarray], list[np.ndarray], list[int], list[int], dict]:
    """Feature matrices, targets (visit shares; `power` sharpens them: visits**power, normalized), chosen indexes
    and game indexes of every complete position, and a summary."""
    xs, ys, chosen, games = [], [], [], []
    deals, versions, codes = set(), set(), set()
    for path in paths:
        for record in read_positions(path):
            visits = np.asarray(record["visits"], dtype=np.float64) ** power
            if visits.sum() <= 0:
                continue
            xs.append(np.asarray(record["features"], dtype=np.float32))
            ys.append(visits / visits.sum())
            chosen.append(int(record["chosen"]))
            games.append(int(record["game_index"]))
            deals.add(int(record["deal"]))
            versions.add(record["feature_version"])
            codes.add(record["code"])
    return xs, ys, chosen, games, {"positions": len(xs), "games": len(deals), "feature_versions": sorted(versions),
                                   "codes": sorted(codes)}


def _pad(xs: list[np.ndarray], ys: list[np.ndarray]):
    import torch

    width = max(len(x) for x in xs)
    n, f = len(xs), xs[0].shape[1]
    x = np.zeros((n, width, f), dtype=np.float32)
    y = np.zeros((n, width), dtype=np.float32)
    mask = np.zeros((n, width), dtype=bool)
    for i, (xi, yi) in enumerate(zip(xs, ys, strict=True)):
        x[i, : len(xi)] = xi
        y[i, : len(yi)] = yi
        mask[i, : len(xi)] = True
    return torch.from_numpy(x), torch.from_numpy(y), torch.from_numpy(mask)


def agreement(scores: list[np.ndarray], chosen: list[int]) -> float:
    """Share of positions where the highest score is the teacher's choice (ties split evenly)."""
    total = 0.0
    for s, c in zip(scores, chosen, strict=True):
        top = np.flatnonzero(s >= s.max() - 1e-12)
        total += (c in top) / len(top)
    return total / len(chosen)


def fit(ledgers: list[Path], out: Path, hidden: int = 32, epochs: int = 400, lr: float = 3e-3,
        weight_decay: float = 1e-4, holdout: int = 5, seed: int = 0, threads: int = 1, power: float = 1.0) -> dict:
    """Train, keep the epoch with the best held-out cross-entropy, write `out` (.npz) and `out`.card.json."""
    import torch

    torch.manual_seed(seed)
    torch.set_num_threads(threads)
    xs, ys, chosen, games, summary = load_positions(ledgers, power)
    if summary["feature_versions"] != [FEATURE_VERSION]:
        raise SystemExit(f"ledgers hold feature versions {summary['feature_versions']}, this code {FEATURE_VERSION}")
    test = [i for i, g in enumerate(games) if g % holdout == 0]
    train = [i for i, g in enumerate(games) if g % holdout != 0]
    flat = np.concatenate([xs[i] for i in train]).astype(np.float64)
    mean = flat.mean(axis=0)
    std = flat.std(axis=0)
    std[std < 1e-6] = 1.0
    norm = [((x - mean) / std).astype(np.float32) for x in xs]
    xtr, ytr, mtr = _pad([norm[i] for i in train], [ys[i] for i in train])
    xte, yte, mte = _pad([norm[i] for i in test], [ys[i] for i in test])
    f = xtr.shape[-1]
    net = (torch.nn.Sequential(torch.nn.Linear(f, hidden), torch.nn.Tanh(), torch.nn.Linear(hidden, 1)) if hidden
           else torch.nn.Sequential(torch.nn.Linear(f, 1)))
    opt = torch.optim.Adam(net.parameters(), lr=lr, weight_decay=weight_decay)

    def loss_of(x, y, m):
        s = net(x).squeeze(-1).masked_fill(~m, -1e9)
        return -(y * torch.log_softmax(s, dim=-1)).sum(-1).mean()

    best = (float("inf"), None, -1)
    started = time.process_time()
    for epoch in range(epochs):
        net.train()
        opt.zero_grad()
        loss = loss_of(xtr, ytr, mtr)
        loss.backward()
        opt.step()
        with torch.no_grad():
            val = float(loss_of(xte, yte, mte))
        if val < best[0]:
            best = (val, {k: v.clone() for k, v in net.state_dict().items()}, epoch)
    net.load_state_dict(best[1])
    linears = [m for m in net if isinstance(m, torch.nn.Linear)]
    layers = [(m.weight.detach().double().numpy().copy(), m.bias.detach().double().numpy().copy()) for m in linears]
    with torch.no_grad():
        train_loss = float(loss_of(xtr, ytr, mtr))
        # the training side's own scores of one held-out position, for the numpy side to be checked against
        probe = xs[test[0]] if test else xs[0]
        probe_scores = net(torch.from_numpy(((probe - mean) / std).astype(np.float32))).squeeze(-1).tolist()
    model = PolicyModel(mean, std, layers)
    from ai.policy.features import feature_names

    names = feature_names("blueskies")
    greedy_col = names.index(MARGIN_VS_BEST)
    model_scores = [model.scores(xs[i]) for i in test]
    greedy_scores = [xs[i][:, greedy_col].astype(np.float64) for i in test]
    visit_top = [ys[i] for i in test]
    metrics = {
        "train_positions": len(train), "test_positions": len(test),
        "train_cross_entropy": round(train_loss, 4), "test_cross_entropy": round(best[0], 4),
        "best_epoch": best[2], "epochs": epochs,
        "test_top1_agreement": round(agreement(model_scores, [chosen[i] for i in test]), 4),
        "greedy_test_top1_agreement": round(agreement(greedy_scores, [chosen[i] for i in test]), 4),
        "uniform_test_cross_entropy": round(float(np.mean([np.log(len(y)) for y in visit_top])), 4),
        "fit_cpu_seconds": round(time.process_time() - started, 1),
    }
    model.meta = {
        "game": "blueskies", "players": 2, "feature_version": FEATURE_VERSION, "feature_names": names,
        "hidden": hidden, "data": {"ledgers": [str(p) for p in ledgers],
                                   "ledger_sha256": {str(p): file_digest(p) for p in ledgers}, **summary},
        "holdout": f"game_index % {holdout} == 0", "metrics": metrics,
        "command": "python -m ai.train " + " ".join(sys.argv[1:]) if sys.argv[1:2] == ["fit"] else "",
        "check": {"features": probe.tolist(), "torch_scores": probe_scores},
        "torch": torch.__version__, "seed": seed, "target_power": power, "lr": lr, "weight_decay": weight_decay,
    }
    out.parent.mkdir(parents=True, exist_ok=True)
    model.save(out)
    card = {**model.meta, "model": str(out), "model_sha256": file_digest(out)}
    out.with_suffix(".card.json").write_text(json.dumps(card, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return card
