"""Would the Blue Skies policy learn its teacher better if it saw the board, not only each action's afterstate?

    python -m research.train.board_context \
        --ledger research/2026-12-04-bs-expert-iteration/data/bs2-exit-r1a/ledger-89g.jsonl.gz \
        --ledger research/2026-12-04-bs-expert-iteration/data/bs2-exit-r1b/ledger-90g.jsonl.gz --epochs 1500

The shipped Blue Skies model scores each legal action by one-ply afterstate features (`ai.policy.features`: the
heuristic's quantities for the seat and its best rival, before and after). This screen asks, before any game is
played, whether board context adds to them: every labelled position is rebuilt by replaying its game from the
deal (the ledger's `game` line), and each action's row gets, from the seat's view only, the columns of the airport
it names (passengers, the seat's and the rivals' gates and passengers there, local gates, free spaces, the next
gate's cost, the seat's cards and the discards of that airport), the table's (round, step, scores, incomes,
supplies, hand and deck sizes, the passenger bag, first player, budget) and, in `all`, the airport's identity.
The same network and loss as `research.train.fit` (one tanh layer, cross-entropy with the visit shares to a power, Adam
on the whole batch, the epoch of least held-out loss) is trained on each column set with the same held-out games
(every 5th game index); it prints held-out cross-entropy and top-1 agreement with the teacher's choice.

A screen, not a strength claim: a column set worth a game evaluation must first learn the teacher better here.
"""

from __future__ import annotations

import argparse
import gzip
import json
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np

import engine
from research.train.fit import _pad, agreement

#: Columns per action: the afterstate row the ledger holds, then the named airport's, then the table's.
AIRPORT_COLUMNS = ("passengers", "my_gates", "my_passengers", "rival_gates", "rival_passengers", "local_gates",
                   "usable_spaces", "free_spaces", "next_cost", "full", "in_my_hand", "discarded")
TABLE_COLUMNS = ("round", "step", "my_score", "rival_score", "my_income", "rival_income", "my_supply",
                 "rival_supply", "my_special_used", "rival_special_used", "hand_size", "deck_count", "bag_red",
                 "bag_green", "first_player", "budget")
COLUMN_SETS = ("after", "board", "all")


def airport_columns(view: dict, seat: int) -> dict[str, list[float]]:
    """Per airport code, the `AIRPORT_COLUMNS` from the seat's view."""
    hand = view.get("hand") or []
    discard = view.get("discard") or {}
    out = {}
    for airport in view["airports"]:
        gates = airport["gates"]
        mine = [g for g in gates if g["owner"] == seat]
        rivals = [g for g in gates if isinstance(g["owner"], int) and g["owner"] != seat]
        cost = airport["next_cost"]
        out[airport["code"]] = [
            airport["passengers"], len(mine), sum(g["passengers"] for g in mine), len(rivals),
            sum(g["passengers"] for g in rivals), sum(g["owner"] == "local" for g in gates), airport["usable_spaces"],
            airport["usable_spaces"] - len(gates), 0.0 if cost is None else cost, 1.0 if cost is None else 0.0,
            hand.count(airport["code"]), discard.get(airport["code"], 0)]
    return out


def table_columns(view: dict, seat: int) -> list[float]:
    """The `TABLE_COLUMNS` from the seat's view; the rival is the leading other seat."""
    rival = max((s for s in range(view["players"]) if s != seat), key=lambda s: view["scores"][s])
    return [view["round"], view["step"] or 0, view["scores"][seat], view["scores"][rival], view["income"][seat],
            view["income"][rival], view["supply"][seat], view["supply"][rival], float(view["special_used"][seat]),
            float(view["special_used"][rival]), view["hand_counts"][seat], view["deck_count"], view["bag"]["red"],
            view["bag"]["green"], float(view["first_player"] == seat), view.get("budget") or 0]


def context_rows(view: dict, seat: int, legal: Sequence[dict], after_rows: Sequence[Sequence[float]]
                 ) -> list[list[float]]:
    """Each action's afterstate row extended by its airport's columns, the table's and the airport's one-hot."""
    airports = airport_columns(view, seat)
    codes = [a["code"] for a in view["airports"]]
    table = table_columns(view, seat)
    none = [0.0] * len(AIRPORT_COLUMNS)
    rows = []
    for action, after in zip(legal, after_rows, strict=True):
        code = action.get("airport")
        onehot = [1.0 if c == code else 0.0 for c in codes]
        rows.append([*after, *airports.get(code, none), *table, *onehot])
    return rows


def load(ledgers: Sequence[Path], games: int | None = None
         ) -> tuple[list[np.ndarray], list[np.ndarray], list[int], list[int], int]:
    """(rows, visit shares, chosen index, game index) of every labelled position, rebuilt by replay, and the width
    of the afterstate part of a row."""
    positions: dict[tuple[str, int], dict[int, dict]] = {}
    finished: list[tuple[str, dict]] = []
    for path in ledgers:
        with gzip.open(path, "rt") as handle:
            for line in handle:
                record = json.loads(line)
                key = (str(path), record["game_index"])
                if record["kind"] == "position":
                    positions.setdefault(key, {})[record["index"]] = record
                elif record["kind"] == "game":
                    finished.append((str(path), record))
    game = engine.get("blueskies")
    xs, ys, chosen, indexes, after = [], [], [], [], 0
    for path, record in finished[:games]:
        labelled = positions.get((path, record["game_index"]), {})
        state = game.new(len(record["scores"]), record["deal"])
        for step, (seat, action) in enumerate(record["actions"]):
            position = labelled.get(step)
            if position is not None and sum(position["visits"]) > 0:
                if [a.to_json() for a in state.legal_actions(seat)] != position["legal"]:
                    raise SystemExit(f"{path} game {record['game_index']} step {step} does not replay")
                rows = context_rows(state.view(seat), seat, position["legal"], position["features"])
                after = len(position["features"][0])
                xs.append(np.asarray(rows, dtype=np.float32))
                ys.append(np.asarray(position["visits"], dtype=np.float64))
                chosen.append(position["chosen"])
                indexes.append(record["game_index"])
            state.apply(seat, game.action_from_json(action))
    return xs, ys, chosen, indexes, after


def columns_of(column_set: str, after: int) -> slice:
    """The leading columns a set uses: the afterstate row alone, with the board's columns, or with identities too."""
    return {"after": slice(0, after), "board": slice(0, after + len(AIRPORT_COLUMNS) + len(TABLE_COLUMNS)),
            "all": slice(0, None)}[column_set]


def screen(xs: list[np.ndarray], ys: list[np.ndarray], chosen: list[int], games: list[int], columns: slice,
           hidden: int = 32, epochs: int = 1500, power: float = 4.0, seed: int = 0) -> dict:
    """Train `research.train.fit`'s network on these columns; held-out (every 5th game) cross-entropy and agreement."""
    import torch

    torch.manual_seed(seed)
    torch.set_num_threads(1)
    xs = [x[:, columns] for x in xs]
    targets = [(y**power) / (y**power).sum() for y in ys]
    test = [i for i, g in enumerate(games) if g % 5 == 0]
    train = [i for i, g in enumerate(games) if g % 5 != 0]
    flat = np.concatenate([xs[i] for i in train]).astype(np.float64)
    mean, std = flat.mean(axis=0), flat.std(axis=0)
    std[std < 1e-6] = 1.0

    def batch(index: list[int]) -> tuple:
        x, m = _pad([((xs[i] - mean) / std).astype(np.float32) for i in index])
        return torch.from_numpy(x), torch.from_numpy(m), torch.from_numpy(_pad([targets[i] for i in index])[0])

    train_batch, test_batch = batch(train), batch(test)
    net = torch.nn.Sequential(torch.nn.Linear(train_batch[0].shape[-1], hidden), torch.nn.Tanh(),
                              torch.nn.Linear(hidden, 1))
    opt = torch.optim.Adam(net.parameters(), lr=3e-3, weight_decay=1e-4)

    def loss_of(x, m, y) -> tuple:
        scores = net(x).squeeze(-1).masked_fill(~m, -1e9)
        return -(y * torch.log_softmax(scores, dim=-1)).sum(-1).mean(), scores

    best = {"test_cross_entropy": float("inf")}
    started = time.process_time()
    for epoch in range(epochs):
        opt.zero_grad()
        loss, _ = loss_of(*train_batch)
        loss.backward()
        opt.step()
        with torch.no_grad():
            held, scores = loss_of(*test_batch)
        if float(held) < best["test_cross_entropy"]:
            rows = scores.numpy()
            best = {"test_cross_entropy": round(float(held), 4), "best_epoch": epoch,
                    "test_top1_agreement": round(agreement([rows[k][: len(ys[i])] for k, i in enumerate(test)],
                                                           [chosen[i] for i in test]), 4)}
    return {**best, "features": train_batch[0].shape[-1], "train_positions": len(train),
            "test_positions": len(test), "cpu_seconds": round(time.process_time() - started)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--ledger", action="append", type=Path, required=True)
    parser.add_argument("--sets", default=",".join(COLUMN_SETS), help="column sets to train, of " + str(COLUMN_SETS))
    parser.add_argument("--hidden", type=int, default=32)
    parser.add_argument("--epochs", type=int, default=1500)
    parser.add_argument("--power", type=float, default=4.0, help="visit shares to this power (bs2-r5: 4)")
    parser.add_argument("--games", type=int, default=None, help="the first N finished games only")
    args = parser.parse_args()
    xs, ys, chosen, games, after = load(args.ledger, args.games)
    print(f"{len(xs)} positions of {len(set(games))} games")
    for name in args.sets.split(","):
        result = screen(xs, ys, chosen, games, columns_of(name, after), args.hidden, args.epochs, args.power)
        print(f"{name:6s} {json.dumps(result)}", flush=True)


if __name__ == "__main__":
    main()
