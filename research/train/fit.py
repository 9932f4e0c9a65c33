"""Fit the afterstate action scorer to a labelling ledger's targets, with PyTorch on the CPU, and write a
numpy-loadable model (`ai.policy.model`) with its model card. One fit for every plan: the ledger's positions say
which target they carry, and their game (and feature version) picks the feature set.

Two kinds of labels:
- **visit shares** (`bs2-distill`: a search's root visits): cross-entropy of a softmax over the legal actions.
  Why: the search's whole root distribution says more than its single choice (the chosen action gets a median
  18% of root visits in Blue Skies), so the student learns the teacher's preferences among the also-rans too.
- **measured gains** (`os2-rule-plus`, plan A: each candidate's paired-playout gain over the rule's choice, with
  its standard error). `regress`: the score difference s(a) - s(rule) regresses the gain, each candidate weighted
  by 1 / (se^2 + floor^2), so the model's scores are gains in the label's unit (thousands of points of final
  margin) and a play margin is in that unit; `listwise`: cross-entropy between softmax(gain / T) and the softmax of
  the scores over the labelled candidates. The model plays "the rule corrected": the rule's top candidates, the
  rule's own choice unless another's predicted gain clears a margin; the margin is chosen on held-out games.

Held-out games (every `holdout`-th training game, by game index, never a position of a game seen in training)
give the figures the card reports (visit shares: cross-entropy, top-1 agreement with the teacher and the rule's
agreement; gains: loss, and the measured gain of the corrected choice at each margin against the rule's 0).
"""

from __future__ import annotations

import json
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ai.policy.bot import corrected_choice
from ai.policy.features import feature_names, feature_version
from ai.policy.model import PolicyModel, file_digest
from research.train.ledger import read_positions

#: Column of `margin_vs_best` (0 for the one-ply best margins: in Blue Skies the greedy rule's choices).
MARGIN_VS_BEST = "margin_vs_best"
#: Play margins (label units: thousands of points of final margin) the card measures on held-out games.
MARGINS = (0.0, 0.005, 0.01, 0.02, 0.03, 0.05, 0.08)


@dataclass
class Positions:
    """A ledger's complete positions as arrays: `kind` is "visits" or "gains"."""

    kind: str
    game: str
    players: int
    xs: list[np.ndarray] = field(default_factory=list)
    games: list[int] = field(default_factory=list)
    #: visits: the normalized targets over the legal actions and the teacher's choice
    ys: list[np.ndarray] = field(default_factory=list)
    chosen: list[int] = field(default_factory=list)
    #: gains: per position the labelled candidates' legal indexes (the rule's first, then its ranking, then the
    #: random extras), their gains over the rule and standard errors
    cands: list[np.ndarray] = field(default_factory=list)
    gains: list[np.ndarray] = field(default_factory=list)
    ses: list[np.ndarray] = field(default_factory=list)
    summary: dict = field(default_factory=dict)


def load_positions(paths: list[Path], power: float = 1.0) -> Positions:
    """Every complete position of the ledgers (one game, one kind of label); visit targets are visits**power,
    normalized."""
    data: Positions | None = None
    deals, versions, codes = set(), set(), set()
    for path in paths:
        for record in read_positions(path):
            kind = "gains" if "candidates" in record else "visits"
            game = record.get("game", "blueskies")
            if data is None:
                data = Positions(kind, game, len(record.get("players", [0, 0])))
            if (kind, game) != (data.kind, data.game):
                raise SystemExit(f"ledgers mix {data.game}/{data.kind} and {game}/{kind} labels")
            if kind == "visits":
                visits = np.asarray(record["visits"], dtype=np.float64) ** power
                if visits.sum() <= 0:
                    continue
                data.ys.append(visits / visits.sum())
                data.chosen.append(int(record["chosen"]))
            else:
                cands = record["candidates"]
                if len(cands) < 2:
                    continue
                data.cands.append(np.asarray([c["action"] for c in cands], dtype=np.int64))
                data.gains.append(np.asarray([c["gain"] for c in cands], dtype=np.float64))
                data.ses.append(np.asarray([c["se"] if c["se"] is not None else 1.0 for c in cands],
                                           dtype=np.float64))
            data.xs.append(np.asarray(record["features"], dtype=np.float32))
            data.games.append(int(record["game_index"]))
            deals.add(int(record["deal"]))
            versions.add(record["feature_version"])
            codes.add(record["code"])
    if data is None:
        raise SystemExit(f"no complete positions in {', '.join(map(str, paths))}")
    data.summary = {"positions": len(data.xs), "games": len(deals), "feature_versions": sorted(versions),
                    "codes": sorted(codes)}
    return data


def _pad(rows: list[np.ndarray], dtype=np.float32, fill=0.0) -> tuple[np.ndarray, np.ndarray]:
    """Stack ragged arrays (first axis ragged) into one padded array and its mask."""
    width = max(len(r) for r in rows)
    out = np.full((len(rows), width, *rows[0].shape[1:]), fill, dtype=dtype)
    mask = np.zeros((len(rows), width), dtype=bool)
    for i, r in enumerate(rows):
        out[i, : len(r)] = r
        mask[i, : len(r)] = True
    return out, mask


def agreement(scores: list[np.ndarray], chosen: list[int]) -> float:
    """Share of positions where the highest score is the teacher's choice (ties split evenly)."""
    total = 0.0
    for s, c in zip(scores, chosen, strict=True):
        top = np.flatnonzero(s >= s.max() - 1e-12)
        total += (c in top) / len(top)
    return total / len(chosen)


def gain_of_play(model_scores: list[np.ndarray], data: Positions, index: list[int], top: int, margin: float
                 ) -> tuple[float, float, float]:
    """Measured mean gain over the rule of the corrected choice on positions `index`, its standard error (over
    positions) and the share of positions where the choice is not the rule's."""
    picked = [corrected_choice(s, data.cands[i], top, margin) for s, i in zip(model_scores, index, strict=True)]
    values = np.array([data.gains[i][j] for j, i in zip(picked, index, strict=True)])
    error = float(values.std(ddof=1) / np.sqrt(len(values))) if len(values) > 1 else float("inf")
    return float(values.mean()), error, float(np.mean([j != 0 for j in picked]))


def fit(ledgers: list[Path], out: Path, hidden: int = 32, epochs: int = 400, lr: float = 3e-3,
        weight_decay: float = 1e-4, holdout: int = 5, seed: int = 0, threads: int = 1, power: float = 1.0,
        loss: str = "regress", temperature: float = 0.05, se_floor: float = 0.05, top: int = 6) -> dict:
    """Train, keep the epoch with the best held-out loss, write `out` (.npz) and `out`.card.json.
    `loss`, `temperature`, `se_floor`, `top` concern gain labels only (see the module docstring)."""
    import torch

    torch.manual_seed(seed)
    torch.set_num_threads(threads)
    data = load_positions(ledgers, power)
    game, version = data.game, feature_version(data.game)
    if data.summary["feature_versions"] != [version]:
        raise SystemExit(f"ledgers hold feature versions {data.summary['feature_versions']}, this code {version}")
    test = [i for i, g in enumerate(data.games) if g % holdout == 0]
    train = [i for i, g in enumerate(data.games) if g % holdout != 0]
    flat = np.concatenate([data.xs[i] for i in train]).astype(np.float64)
    mean = flat.mean(axis=0)
    std = flat.std(axis=0)
    std[std < 1e-6] = 1.0
    norm = [((x - mean) / std).astype(np.float32) for x in data.xs]

    def batch(index: list[int]) -> dict:
        x, m = _pad([norm[i] for i in index])
        out = {"x": torch.from_numpy(x), "m": torch.from_numpy(m)}
        if data.kind == "visits":
            out["y"] = torch.from_numpy(_pad([data.ys[i] for i in index])[0])
        else:
            cands, cm = _pad([data.cands[i] for i in index], np.int64)
            gains = _pad([data.gains[i] for i in index])[0]
            ses = _pad([data.ses[i] for i in index], fill=1.0)[0]
            weight = cm / (ses**2 + se_floor**2)
            weight[:, 0] = 0.0  # the rule's own gain is 0 by definition
            out.update(c=torch.from_numpy(cands), cm=torch.from_numpy(cm), g=torch.from_numpy(gains),
                       w=torch.from_numpy(weight.astype(np.float32)))
        return out

    btr, bte = batch(train), batch(test)
    f = btr["x"].shape[-1]
    net = (torch.nn.Sequential(torch.nn.Linear(f, hidden), torch.nn.Tanh(), torch.nn.Linear(hidden, 1)) if hidden
           else torch.nn.Sequential(torch.nn.Linear(f, 1)))
    opt = torch.optim.Adam(net.parameters(), lr=lr, weight_decay=weight_decay)

    def loss_of(b: dict) -> torch.Tensor:
        s = net(b["x"]).squeeze(-1)
        if data.kind == "visits":
            return -(b["y"] * torch.log_softmax(s.masked_fill(~b["m"], -1e9), dim=-1)).sum(-1).mean()
        sc = torch.gather(s, 1, b["c"])  # the labelled candidates' scores, the rule's first
        if loss == "regress":
            pred = sc - sc[:, :1]
            return (b["w"] * (pred - b["g"]) ** 2).sum() / b["w"].sum()
        target = torch.softmax((b["g"] / temperature).masked_fill(~b["cm"], -1e9), dim=-1)
        return -(target * torch.log_softmax(sc.masked_fill(~b["cm"], -1e9), dim=-1)).sum(-1).mean()

    best = (float("inf"), None, -1)
    started = time.process_time()
    for epoch in range(epochs):
        net.train()
        opt.zero_grad()
        value = loss_of(btr)
        value.backward()
        opt.step()
        with torch.no_grad():
            val = float(loss_of(bte))
        if val < best[0]:
            best = (val, {k: v.clone() for k, v in net.state_dict().items()}, epoch)
    net.load_state_dict(best[1])
    linears = [m for m in net if isinstance(m, torch.nn.Linear)]
    layers = [(m.weight.detach().double().numpy().copy(), m.bias.detach().double().numpy().copy()) for m in linears]
    with torch.no_grad():
        train_loss = float(loss_of(btr))
        # the training side's own scores of one held-out position, for the numpy side to be checked against
        probe = data.xs[test[0]] if test else data.xs[0]
        probe_scores = net(torch.from_numpy(((probe - mean) / std).astype(np.float32))).squeeze(-1).tolist()
    model = PolicyModel(mean, std, layers)
    names = feature_names(game)
    model_scores = [model.scores(data.xs[i]) for i in test]
    metrics: dict = {
        "train_positions": len(train), "test_positions": len(test), "best_epoch": best[2], "epochs": epochs,
        "fit_cpu_seconds": round(time.process_time() - started, 1),
    }
    extra: dict = {}
    if data.kind == "visits":
        greedy_col = names.index(MARGIN_VS_BEST)
        greedy_scores = [data.xs[i][:, greedy_col].astype(np.float64) for i in test]
        chosen = [data.chosen[i] for i in test]
        metrics.update({
            "train_cross_entropy": round(train_loss, 4), "test_cross_entropy": round(best[0], 4),
            "test_top1_agreement": round(agreement(model_scores, chosen), 4),
            "greedy_test_top1_agreement": round(agreement(greedy_scores, chosen), 4),
            "uniform_test_cross_entropy": round(float(np.mean([np.log(len(data.ys[i])) for i in test])), 4),
        })
    else:
        # the score difference is a gain in label units (regress) or in units of the temperature (listwise)
        unit = 1.0 if loss == "regress" else temperature
        table = {}
        for margin in MARGINS:
            mean_gain, error, share = gain_of_play(model_scores, data, test, top, margin / unit)
            table[str(margin)] = {"gain": round(mean_gain, 5), "se": round(error, 5), "overrides": round(share, 4)}
        chosen_margin = max(MARGINS, key=lambda m: table[str(m)]["gain"])
        oracle = np.mean([max(0.0, float(data.gains[i][:top].max())) for i in test])
        metrics.update({
            "loss": loss, "train_loss": round(train_loss, 5), "test_loss": round(best[0], 5),
            "test_gain_by_margin": table, "test_oracle_gain_top": round(float(oracle), 5),
        })
        extra["play"] = {"mode": "rule-corrected", "top": top, "margin": chosen_margin / unit,
                         "margin_label_units": chosen_margin, "chosen_by": "best held-out measured gain"}
        extra.update({"temperature": temperature, "se_floor": se_floor})
    model.meta = {
        "game": game, "players": data.players, "feature_version": version, "feature_names": names, "labels": data.kind,
        "hidden": hidden, "data": {"ledgers": [str(p) for p in ledgers],
                                   "ledger_sha256": {str(p): file_digest(p) for p in ledgers}, **data.summary},
        "holdout": f"game_index % {holdout} == 0", "metrics": metrics,
        "command": "python -m research.train " + " ".join(sys.argv[1:]) if sys.argv[1:2] == ["fit"] else "",
        "check": {"features": probe.tolist(), "torch_scores": probe_scores},
        "torch": torch.__version__, "seed": seed, "target_power": power, "lr": lr, "weight_decay": weight_decay,
        **extra,
    }
    out.parent.mkdir(parents=True, exist_ok=True)
    model.save(out)
    card = {**model.meta, "model": str(out), "model_sha256": file_digest(out)}
    out.with_suffix(".card.json").write_text(json.dumps(card, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return card
