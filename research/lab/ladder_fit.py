"""One rating fit per game and player count over every stored paired ledger: the ladders the catalog publishes.

Why: the catalog published one rating per level and game, whatever the table size, without an interval, and
several were chained from separate samples (an audit). Here every game of every ledger the repository
keeps (`SOURCES`: the ladder's, the evaluations', the paired research runs') is read once; each seat is named by
what actually played it (an *identity*: `greedy`, `policy:bs2-r5`, `search:greedy-prior:5300`, ...), since a level
name meant other bots on other days; and one Plackett-Luce model (Bradley-Terry at 2 players) is fitted per game
and player count over all of them. A level's rating is its identity's (`level_identity`); a level whose identity
never met the anchor's component at that table is "not measured", never a figure borrowed from another table.

The model: a seat of identity i has strength theta_i (the anchor `greedy` is 0); a game's finishing order (winners
first, then by score) has probability prod_k exp(theta of place k) / sum over the seats not yet placed (Plackett-
Luce; at 2 players P(a beats b) = 1 / (1 + exp(theta_b - theta_a)), Bradley-Terry). The fit reads the first place
of each order, who won (`WINNER_ONLY`: the bots are judged on wins, and lower places need not follow one strength).
Seats that finish level are counted as every order of them with equal weight (at 2 players half a win each, as
`research.lab.rating` does). One
virtual draw between every two identities that met in a game keeps a clean sweep (greedy against random) finite, so
random's figure only says "far below". Ratings are on the Elo scale (400 / ln 10 x theta) with 95% intervals of
+-1.96 standard errors from the observed Fisher information at the maximum (the inverse Hessian, the anchor held).

Code drift inside an identity is accepted, as the ladder accepted it: greedy of 1 December and of today are one
identity. A level whose bot changed (Blue Skies' `fast` was bs2-r3's policy on 3 December, bs2-r5's since 4
December) is told apart by what the ledger line records (model digest, caps, search fields) and by date, per source.

    python -m research.lab.ladder_fit            # the fit, every identity, per table (prints; writes nothing)
    python -m research.lab.ladder_fit --write    # also writes the published ladders (ai/ladders.json)
    python -m research.lab.ladder_fit --markdown # the docs' tables
"""

from __future__ import annotations

import argparse
import gzip
import itertools
import json
import math
from collections import defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
#: The published ladders: what `ai.level_figures` serves; `python -m research.lab.ladder_fit --write` writes it, and a
#: test checks it equals a fit of the ledgers now.
LADDERS_PATH = ROOT / "ai" / "ladders.json"
ANCHOR = "greedy"
ELO = 400 / math.log(10)
Z95 = 1.959964

def table_sizes() -> dict[str, tuple[int, ...]]:
    """Every player count each game with a bot profile is played at (its engine's range)."""
    import engine
    from ai.games import profiles

    return {game: tuple(range(engine.get(game).min_players, engine.get(game).max_players + 1)) for game in profiles()}


def level_identity() -> dict[str, dict[str, str]]:
    """What each level that plays as itself is, by game: the identity its games are filed under (the profile's
    `level_identity`). A level that plays as another is that level's alias. A test derives these from the profiles'
    settings (the model `fast` ships, its search cap, `mcts-normal`'s prior and cap), so a changed level cannot keep an
    old identity's rating."""
    from ai.games import profiles

    return {game: dict(entry.level_identity) for game, entry in profiles().items()}


@dataclass(frozen=True)
class Source:
    """A ledger (a path relative to the repository, gzip if it ends so) and who played each seat: `seats` maps a
    ledger label, or `label@cap` where a cap tells bots of one label apart, to an identity. `kind` says how the
    ledger's lines name labels and caps: "ladder" (`research.lab.ladder`, caps by level), "tournament"
    (`research.lab.tournament`, no caps), "variants" (`research.lab.search_variants`: the variant at `iterations`, the
    opponents at `against_iterations`), "eval" (`research.train evaluate`: `learned-policy` is the model the line's
    digest names, the opponent at `cap`). `where`: key fields a line must have to count (a ledger holding two eras)."""

    path: str
    kind: str
    seats: dict[str, str] = field(default_factory=dict)
    where: dict = field(default_factory=dict)
    note: str = ""


#: Blue Skies' greedy-prior searches by iteration cap (the levels before their guided settings, `ai.levels.SEARCH`).
_BS_SEARCH = {"mcts-easy@200": "search:greedy-prior:200", "mcts-normal@5300": "search:greedy-prior:5300",
              "mcts-hard@15900": "search:greedy-prior:15900"}
_AP_SEARCH = {"mcts-easy@200": "search:greedy-prior:200", "mcts-normal@5200": "search:greedy-prior:5200",
              "mcts-hard@15600": "search:greedy-prior:15600"}
_BASE = {"random": "random", "greedy": "greedy"}
_ISSUE7 = {"mcts-normal": "search:1s:issue-7"}

#: Where each model's evaluation ledgers are kept: the research folder of the experiment that made it.
EVALUATIONS: dict[str, str] = {
    **dict.fromkeys(("bs2-r1", "bs2-r2", "bs2-r3", "bs2-r4"), "research/2026-12-03-bs2-distill/models"),
    **dict.fromkeys(("bs2-r5", "bs2-r6"), "research/2026-12-04-bs-expert-iteration/models"),
    **dict.fromkeys(("os2-r1", "os2-r2", "os2-r3"), "research/2026-12-03-opensky-plan-a/models"),
    **dict.fromkeys(("ap3-r1", "os4-r1"), "research/2026-12-04-first-labels-ap3-os4/models"),
    "ap3-r2": "research/2026-12-05-ap-guided-search/models",
}


def _eval_ledger(name: str) -> str:
    """The path of a model's evaluation ledger `<model>.eval-<what>` (see `EVALUATIONS`)."""
    return f"{EVALUATIONS[name.split('.')[0]]}/{name}.jsonl"


SOURCES: tuple[Source, ...] = (
    # --- the ladder (`python -m research.lab.ladder`, bench/RESULTS.md "The ladder") ---
    Source("bench/results/ladder-opensky-2p.jsonl", "ladder",
           {**_BASE, "mcts-normal@1000": "search:greedy-prior:1000", "fast": "rule:opensky-fast"},
           note="fast: the rule with its measured weights (6 December games)"),
    Source("bench/results/ladder-opensky-3p.jsonl", "ladder", {**_BASE, "fast": "rule:opensky-fast"}),
    Source("bench/results/ladder-opensky-4p.jsonl", "ladder", {**_BASE, "fast": "rule:opensky-fast"}),
    Source("bench/results/ladder-blueskies-2p.jsonl", "ladder",
           {**_BASE, **_BS_SEARCH, "mcts-normal@1000": "search:guided:bs2-r3:1000", "fast": "policy:bs2-r3"},
           note="fast: bs2-r3's policy (the level on 3 December, when these games were played); mcts-normal at "
                "1,000 iterations: the guided search (5 December)"),
    Source("bench/results/ladder-blueskies-3p.jsonl", "ladder", dict(_BASE)),
    Source("bench/results/ladder-blueskies-4p.jsonl", "ladder", dict(_BASE)),
    Source("bench/results/ladder-blueskies-5p.jsonl", "ladder", dict(_BASE)),
    Source("bench/results/ladder-aeroplanes-3p.jsonl", "ladder",
           {**_BASE, **_AP_SEARCH, "fast": "rule:aeroplanes-fast-4dec"},
           note="fast: the rule with measured weights (4 December), not today's short search"),
    Source("bench/results/ladder-aeroplanes-4p.jsonl", "ladder", dict(_BASE)),
    Source("bench/results/ladder-aeroplanes-5p.jsonl", "ladder", dict(_BASE)),
    # --- OpenSpiel's ISMCTS as a reference opponent (bench/RESULTS.md "Against OpenSpiel's ISMCTS", 3 December,
    # before any guided search: the platform's searches there are the greedy-prior ones) ---
    Source("research/2026-12-03-openspiel-reference/ledgers/ladder-opensky-2p-openspiel.jsonl", "ladder",
           {**_BASE, "openspiel-ismcts@100": "openspiel-ismcts:100"}),
    Source("research/2026-12-03-openspiel-reference/ledgers/ladder-blueskies-2p-openspiel.jsonl", "ladder",
           {**_BASE, "openspiel-ismcts@100": "openspiel-ismcts:100"}),
    Source("research/2026-12-03-openspiel-reference/ledgers/refbots-opensky-2p.jsonl", "ladder",
           {"mcts-normal@100": "search:greedy-prior:100", "mcts-normal@700": "search:greedy-prior:700",
            "openspiel-ismcts@100": "openspiel-ismcts:100", "openspiel-ismcts@119": "openspiel-ismcts:119"}),
    Source("research/2026-12-03-openspiel-reference/ledgers/refbots-blueskies-2p.jsonl", "ladder",
           {"mcts-normal@100": "search:greedy-prior:100", "mcts-normal@530": "search:greedy-prior:530",
            "openspiel-ismcts@100": "openspiel-ismcts:100", "openspiel-ismcts@78": "openspiel-ismcts:78"}),
    Source("research/2026-12-03-openspiel-reference/ledgers/refbots-aeroplanes-3p.jsonl", "ladder",
           {"mcts-normal@100": "search:greedy-prior:100", "mcts-normal@520": "search:greedy-prior:520",
            "openspiel-ismcts@100": "openspiel-ismcts:100", "openspiel-ismcts@34": "openspiel-ismcts:34"}),
    # --- the first tournaments (1 s a decision, the search of its day; labelled issue-7 in the ledgers) ---
    *(Source(f"research/2026-12-01-strength-targets/ledgers/tournament-{name}.jsonl", "tournament",
             {**_BASE, **_ISSUE7})
      for name in ("opensky-2p-greedy", "opensky-2p-random", "opensky-4p-greedy", "blueskies-2p-greedy",
                   "blueskies-2p-random", "blueskies-4p-greedy-13", "aeroplanes-3p-random", "aeroplanes-4p-greedy")),
    # --- paired research runs (`python -m research.lab.search_variants`) ---
    *(Source(f"research/2026-12-05-ap-fast-search/ledgers/ap-fast-guided100-{p}-vs-greedy-seed{s}.jsonl", "variants",
             {"guided100@100": "search:guided:ap3-r3:100", "greedy": "greedy"})
      for p, s in (("3p", 242), ("3p", 243), ("4p", 244), ("5p", 245))),
    *(Source(f"research/2026-12-06-ap-fast-cost/ledgers/cap70-{p}p.jsonl", "variants",
             {"guided100@100": "search:guided:ap3-r3:100", "guided70@100": "search:guided:ap3-r3:70",
              "greedy": "greedy"},
             note="guided70: the variant's own 70-iteration cap under the run's 100 (its `iterations` field)")
      for p in (3, 4)),
    Source("research/2026-12-05-ap-fast-search/ledgers/ap-fast-guided100-vs-guided-1k-seed246.jsonl", "variants",
           {"guided100@100": "search:guided:ap3-r3:100", "mcts-normal@1000": "search:guided:ap3-r3:1000"}),
    Source("research/2026-12-05-ap-fast-search/ledgers/ap-fast-guided100-vs-mcts-normal-5200-seed247.jsonl", "variants",
           {"guided100@100": "search:guided:ap3-r3:100", "mcts-normal@5200": "search:greedy-prior:5200"}),
    Source("research/2026-12-05-ap-guided-search/ledgers/ap-guided-1k-vs-mcts-normal-5200-seed238.jsonl", "variants",
           {"guided@1000": "search:guided:ap3-r3:1000", "mcts-normal@5200": "search:greedy-prior:5200"},
           note="before Aeroplanes' mcts-normal was guided: its opponents are the greedy-prior search"),
    Source("research/2026-12-05-ap-guided-search/ledgers/ap4-guided-1k-vs-mcts-normal-5200-seed239.jsonl", "variants",
           {"guided@1000": "search:guided:ap3-r3:1000", "mcts-normal@5200": "search:greedy-prior:5200"}),
    Source("research/2026-12-05-ap-guided-search/ledgers/ap-guidedhard-5200-vs-guided-1k-seed240.jsonl", "variants",
           {"guidedhard@5200": "search:guided:ap3-r3:5200:depth40", "mcts-normal@1000": "search:guided:ap3-r3:1000"}),
    Source("research/2026-12-04-bs-fast-short-search/ledgers/bs-fast-search-r5-seed241.jsonl", "variants",
           {"fast-r5@200": "search:guided:bs2-r5:200:w2:c0.4", "mcts-normal@5300": "search:greedy-prior:5300"}),
    # --- the learned models' evaluations (`python -m research.train evaluate`, each model's card) ---
    *(Source(_eval_ledger(name), "eval", {"greedy": "greedy"})
      for name in ("ap3-r1.eval-greedy", "ap3-r2.eval-greedy-3p-solo", "bs2-r1.eval-greedy", "bs2-r2.eval-greedy",
                   "bs2-r3.eval-greedy", "bs2-r3.eval-greedy-seed222", "bs2-r3.eval-greedy-seed224",
                   "bs2-r3.eval-greedy-3p", "bs2-r3.eval-greedy-3p-seed224", "bs2-r3.eval-greedy-4p",
                   "bs2-r3.eval-greedy-4p-seed224", "bs2-r3.eval-greedy-5p", "bs2-r3.eval-greedy-5p-seed224",
                   "bs2-r4.eval-greedy", "bs2-r5.eval-greedy-seed222", "bs2-r5.eval-greedy-seed224",
                   "bs2-r5.eval-greedy-3p-seed224", "bs2-r5.eval-greedy-4p-seed224", "bs2-r5.eval-greedy-5p-seed224",
                   "bs2-r6.eval-greedy-seed222", "os2-r1.eval-greedy", "os2-r1.eval-greedy-4p", "os2-r2.eval-greedy",
                   "os2-r2.eval-greedy-seed36", "os2-r2.eval-greedy-seed37", "os2-r2.eval-greedy-seed38",
                   "os2-r2.eval-greedy-seed39", "os2-r2.eval-greedy-seed40", "os2-r2.eval-greedy-seed38-rule",
                   "os2-r2.eval-greedy-seed39-rule", "os2-r2.eval-greedy-seed40-rule",
                   "os2-r2.eval-greedy-seed41-rule", "os2-r2.eval-greedy-seed42-rule", "os2-r2.eval-greedy-3p-solo",
                   "os2-r2.eval-greedy-4p-solo", "os2-r3.eval-greedy-seed37", "os4-r1.eval-greedy-4p-solo")),
    *(Source(_eval_ledger(name), "eval", {"mcts-normal@5300": "search:greedy-prior:5300"},
             note="before Blue Skies' mcts-normal was guided (3 December): the greedy-prior search")
      for name in ("bs2-r1.eval-mcts-normal", "bs2-r3.eval-mcts-normal")),
    *(Source(_eval_ledger(name), "eval",
             {"mcts-normal:greedy-prior@5300": "search:greedy-prior:5300"})
      for name in ("bs2-r5.eval-mcts-normal-greedy-prior", "bs2-r6.eval-mcts-normal-greedy-prior")),
    Source(_eval_ledger("bs2-r5.eval-mcts-normal"), "eval",
           {"mcts-normal@1000": "search:guided:bs2-r3:1000"}),
)

#: The training runs' labelled self-play (`python -m research.train label`), in the research folders that made them.
TRAINING_DATA = tuple(sorted(f"{path.parent.parent.relative_to(ROOT).as_posix()}/"
                             for path in ROOT.glob("research/*/data/*/manifest.json")))

#: Ledgers in the repository the fit leaves out, and why (a test checks every ledger is a source or listed here).
EXCLUDED: dict[str, str] = {
    **dict.fromkeys(TRAINING_DATA, "labelling self-play: every seat is the same search, so its games compare no two "
                    "bots"),
    "research/2026-12-06-bs-fast-gumbel/ledgers/bs-fast-gumbel-vs-mcts-normal-seed300.jsonl": "a sequential test "
    "stopped undecided at 543 games on code that no longer exists (research/2026-12-06-bs-fast-gumbel): its root "
    "is no level",
    "research/2026-12-06-bs-fast-gumbel/ledgers/bs-fast-gumbel-vs-mcts-normal-seed320.jsonl": "a sequential test "
    "of a Gumbel root (research/2026-12-06-bs-fast-gumbel; H0 accepted): the root is no level, and its opponent, "
    "the greedy-prior search, is no longer one either",
    **dict.fromkeys(
        [f"research/2026-12-06-opensky-subsidy-race/ledgers/race-{n}p-seed6100.jsonl" for n in (2, 3, 4)],
        "games against a scripted opponent (the subsidy race), which is no level: they rate none"),
}


@dataclass(frozen=True)
class Game:
    """A finished game as the fit reads it: the identity of each seat and the seats by finishing place, best
    first (seats that finished level share a place)."""

    identities: tuple[str, ...]
    places: tuple[tuple[int, ...], ...]


def places(scores: list, winners: list) -> tuple[tuple[int, ...], ...]:
    """Seats by finishing place: the winners (after the game's tie-break) first, then by score; equal keys share."""
    keys = {seat: (seat in winners, scores[seat]) for seat in range(len(scores))}
    ordered = sorted(keys, key=lambda s: keys[s], reverse=True)
    return tuple(tuple(group) for _, group in itertools.groupby(ordered, key=lambda s: keys[s]))


def _lines(path: Path) -> Iterator[dict]:
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as handle:
        for line in handle:
            try:
                entry = json.loads(line)
            except ValueError:
                continue  # a line cut short by a killed run
            if isinstance(entry, dict) and "key" in entry and "result" in entry:
                yield entry


def _model_names() -> dict[str, str]:
    """Model file digest -> model name (`bs2-r5`), over the models shipped in `ai/policy/models` and those the
    research folders keep (`research/*/models`), whose evaluations are ledgers of the fit too."""
    from ai.policy import MODELS_DIR
    from ai.policy.model import file_digest

    paths = [*MODELS_DIR.glob("*.npz"), *ROOT.glob("research/*/models/*.npz")]
    return {file_digest(path): path.stem for path in sorted(paths)}


def _label_caps(source: Source, key: dict, labels: list[str]) -> list[str]:
    """Each seat's lookup name: `label@cap` where the ledger gives the label a cap, else the label."""
    if source.kind == "ladder":
        caps = key.get("caps") or {}
        return [f"{label}@{caps[label]}" if caps.get(label) is not None else label for label in labels]
    if source.kind == "variants":
        out = []
        for seat in range(len(labels)):
            variant_seat = seat == (-key_index(key)) % len(labels)
            cap = key["iterations"] if variant_seat else (key.get("against_iterations") or key["iterations"])
            name = key["variant"] if variant_seat else key["against"]
            out.append(f"{name}@{cap}" if name not in ("greedy", "random") else name)
        return out
    if source.kind == "eval":
        cap = key.get("cap")
        return [label if label in ("learned-policy", "greedy", "random") or cap is None else f"{label}@{cap}"
                for label in labels]
    return list(labels)


def key_index(key: dict) -> int:
    return int(key["__index"])


def _identity(source: Source, key: dict, name: str, models: dict[str, str]) -> str:
    if source.kind == "eval" and name == "learned-policy":
        model = models.get(key["model"], key["model"])
        rule = key.get("rule")
        return f"policy:{model}" + (f"+rule{json.dumps(rule, sort_keys=True)}" if rule else "")
    found = source.seats.get(name)
    if found is None and "@" in name:
        found = source.seats.get(name.split("@")[0])
    if found is None:
        raise ValueError(f"{source.path}: no identity for the seat {name!r} (key {key})")
    return found


def read_source(source: Source, models: dict[str, str] | None = None) -> list[tuple[int, Game]]:
    """(player count, game) for every distinct game of the source: a line counts once per key (less the code
    fingerprint) and index, the first one read (a repeated line-up or a replay at new code is not a new game)."""
    models = _model_names() if models is None else models
    path = ROOT / source.path
    if not path.exists():
        return []
    seen: set[str] = set()
    out = []
    for entry in _lines(path):
        key = dict(entry["key"])
        if any(key.get(k) != v for k, v in source.where.items()):
            continue
        key.pop("code", None)
        ident = json.dumps([key, entry.get("index")], sort_keys=True)
        if ident in seen:
            continue
        seen.add(ident)
        result = entry["result"]
        labels = list(result["levels"])
        key["__index"] = entry.get("index", 0)
        names = _label_caps(source, key, labels)
        identities = tuple(_identity(source, key, name, models) for name in names)
        if len(set(identities)) < 2:
            continue  # one bot in every seat compares nothing
        out.append((len(labels), Game(identities, places(result["scores"], result["winners"]))))
    return out


def game_of(source: Source) -> str:
    """The game a source's games are of (from its first line's key)."""
    for entry in _lines(ROOT / source.path):
        key = entry["key"]
        return key.get("ladder") or key.get("game") or key.get("search_variants") or key["eval"]
    raise ValueError(f"{source.path} holds no game")


def tables(sources: Iterable[Source] = SOURCES) -> dict[tuple[str, int], list[Game]]:
    """Every source's games by (game, player count)."""
    models = _model_names()
    out: dict[tuple[str, int], list[Game]] = defaultdict(list)
    for source in sources:
        if not (ROOT / source.path).exists():
            continue
        game = game_of(source)
        for players, played in read_source(source, models):
            out[(game, players)].append(played)
    return dict(out)


#: The fit reads who won each game, the first place of the Plackett-Luce order (at 2 players the whole order, so
#: Bradley-Terry either way). Why not the whole order: the bots are built and judged on wins, and the lower places
#: do not follow one strength: Aeroplanes' `fast` at 4 players wins 62.5% of its games against three greedy but
#: finishes last in 32% (research/2026-12-05-ap-fast-search/ledgers/ap-fast-guided100-4p-vs-greedy-seed244.jsonl:
#: 125, 5, 6 and 64 games in first to fourth place), a risk-taking strategy the full order would rate at +56 where
#: its wins say +280.
WINNER_ONLY = 1


@dataclass(frozen=True)
class Rating:
    """An identity's rating (Elo scale, the anchor 0), its 95% interval and the games it played in this table."""

    elo: float
    low: float
    high: float
    games: int


def _orders(played: Game) -> list[tuple[float, tuple[int, ...]]]:
    """The strict finishing orders a game stands for, with their weights: every order of the seats that finished
    level, equally (a 2-player draw: half a win each)."""
    groups = [list(itertools.permutations(group)) for group in played.places]
    count = math.prod(len(g) for g in groups)
    return [(1.0 / count, tuple(seat for part in combo for seat in part)) for combo in itertools.product(*groups)]


def plackett_luce(games: list[Game], anchor: str = ANCHOR, prior_draws: float = 1.0,
                  depth: int | None = WINNER_ONLY) -> dict[str, Rating]:
    """The maximum-likelihood Plackett-Luce strengths of every identity connected to `anchor` through these games
    (one virtual draw per pair that met), with Fisher-information intervals; identities not connected to the anchor
    are left out (nothing ties their scale to it). `depth`: how many places of each finishing order the likelihood
    reads (1: who won; None: the whole order). ValueError if the anchor played none of them."""
    met: dict[str, set[str]] = defaultdict(set)
    for played in games:
        for a, b in itertools.combinations(set(played.identities), 2):
            met[a].add(b)
            met[b].add(a)
    if anchor not in met:
        raise ValueError(f"the anchor {anchor!r} played none of these games")
    component = {anchor}
    frontier = [anchor]
    while frontier:
        for other in met[frontier.pop()]:
            if other not in component:
                component.add(other)
                frontier.append(other)
    names = sorted(component)
    index = {name: i for i, name in enumerate(names)}
    # Stages aggregated: (the identities still to be placed, as a sorted tuple of indices with repeats; the placed
    # one's index) -> total weight. The likelihood depends on nothing else, and a few hundred patterns stand for
    # tens of thousands of games.
    stages: dict[tuple[tuple[int, ...], int], float] = defaultdict(float)
    counts: dict[str, int] = defaultdict(int)
    for played in games:
        if played.identities[0] not in component:
            continue
        for name in set(played.identities):
            counts[name] += 1
        for weight, order in _orders(played):
            seq = [index[played.identities[s]] for s in order]
            for k in range(len(seq) - 1 if depth is None else min(depth, len(seq) - 1)):
                stages[(tuple(sorted(seq[k:])), seq[k])] += weight
    for a, b in itertools.combinations(names, 2):
        if b in met[a]:
            pair = tuple(sorted((index[a], index[b])))
            stages[(pair, index[a])] += prior_draws / 2
            stages[(pair, index[b])] += prior_draws / 2
    patterns = list(stages.items())
    free = [i for i in range(len(names)) if names[i] != anchor]
    theta = np.zeros(len(names))
    info = np.eye(len(free))
    for _ in range(200):  # Newton's method on the concave log-likelihood, the anchor held at 0
        grad = np.zeros(len(names))
        hess = np.zeros((len(names), len(names)))
        for (remaining, chosen), weight in patterns:
            idx = np.array(remaining)
            e = np.exp(theta[idx] - theta[idx].max())
            # each identity's share of the seats still to be placed (an identity may hold several)
            uniq, inverse = np.unique(idx, return_inverse=True)
            share = np.bincount(inverse, weights=e) / e.sum()
            grad[chosen] += weight
            grad[uniq] -= weight * share
            # the information of log-sum-exp: diag(share) - share share^T over the distinct identities
            hess[uniq, uniq] += weight * share
            hess[np.ix_(uniq, uniq)] -= weight * np.outer(share, share)
        info = hess[np.ix_(free, free)]
        step = np.linalg.solve(info, grad[free])
        theta[free] += step
        if np.max(np.abs(step)) < 1e-10:
            break
    errors = np.zeros(len(names))
    errors[free] = np.sqrt(np.diag(np.linalg.inv(info)))
    return {name: Rating(ELO * theta[i], ELO * (theta[i] - Z95 * errors[i]), ELO * (theta[i] + Z95 * errors[i]),
                         counts[name]) for name, i in index.items()}


def fit(sources: Iterable[Source] = SOURCES) -> dict[tuple[str, int], dict[str, Rating]]:
    """Every table's fit: (game, players) -> identity -> rating."""
    return {table: plackett_luce(games) for table, games in sorted(tables(sources).items())
            if any(ANCHOR in g.identities for g in games)}


def ladders(fitted: dict[tuple[str, int], dict[str, Rating]] | None = None) -> dict:
    """The published ladders: game -> player count (a string, as JSON keys are) -> level -> its identity, rating,
    interval (rounded to 0.1 Elo) and games, or None where the level's identity has no games at that table that tie
    it to the anchor ("not measured")."""
    fitted = fit() if fitted is None else fitted
    out: dict = {}
    identities, counts = level_identity(), table_sizes()
    for game, count in sorted((g, p) for g in counts for p in counts[g]):
        table = fitted.get((game, count), {})
        rungs = {}
        for level, identity in identities[game].items():
            rating = table.get(identity)
            rungs[level] = {"identity": identity, "rating": None, "low": None, "high": None, "games": 0}
            if rating is not None:
                rungs[level].update(rating=round(float(rating.elo), 1), low=round(float(rating.low), 1),
                                    high=round(float(rating.high), 1), games=rating.games)
        out.setdefault(game, {})[str(count)] = rungs
    return out


def published() -> dict:
    """The ladders as last written (`LADDERS_PATH`)."""
    return json.loads(LADDERS_PATH.read_text(encoding="utf-8"))


#: The marks around the tables `markdown` writes into the docs (a test checks the docs hold the published ones).
DOCS_BEGIN, DOCS_END = "<!-- ladders:begin (python -m research.lab.ladder_fit --markdown) -->", "<!-- ladders:end -->"


def markdown(ladder: dict) -> str:
    """The docs' tables: per game, each offered level (its player-facing label and engine id) by player count,
    rating [95% interval] (games), "not measured" where the fit has none; the old names under each table."""
    import engine
    from ai.games import profile
    from ai.level_figures import LABELS

    identities = level_identity()
    lines = [DOCS_BEGIN]
    for game, by_players in ladder.items():
        counts = list(by_players)
        lines += [f"**{engine.get(game).title}**", "",
                  "| level | " + " | ".join(f"{p} players" for p in counts) + " |", "|---|" + "---|" * len(counts)]
        for level in identities[game]:
            cells = []
            for p in counts:
                rung = by_players[p][level]
                cells.append("not measured" if rung["rating"] is None else
                             f"{rung['rating']:+.0f} [{rung['low']:+.0f}, {rung['high']:+.0f}] ({rung['games']:,})")
            lines.append(f"| {LABELS[level]} (`{level}`) | " + " | ".join(cells) + " |")
        aliases = sorted(profile(game).same_as.items())
        lines += ["", "Old names, still accepted: " + ", ".join(f"`{old}` plays as `{new}`" for old, new in aliases)
                  + ".", ""]
    lines.append(DOCS_END)
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--write", action="store_true", help=f"write the published ladders ({LADDERS_PATH.name})")
    parser.add_argument("--markdown", action="store_true", help="print the docs' tables")
    args = parser.parse_args(argv)
    fitted = fit()
    ladder = ladders(fitted)
    if args.markdown:
        print(markdown(ladder))
        return
    for (game, players), table in fitted.items():
        print(f"{game} {players}p  ({sum(1 for _ in table)} identities)")
        for name, rating in sorted(table.items(), key=lambda kv: -kv[1].elo):
            print(f"  {name:<44}{rating.elo:>+8.0f}  [{rating.low:+.0f}, {rating.high:+.0f}]  {rating.games:>6} games")
    if args.write:
        LADDERS_PATH.write_text(json.dumps(ladder, indent=1, sort_keys=True) + "\n", encoding="utf-8")
        print(f"wrote {LADDERS_PATH.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
