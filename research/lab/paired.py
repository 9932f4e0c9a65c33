"""Paired comparisons of bot variants: how variants are named on the command line and how their games
are summed up against the first variant (`research.lab.search_variants`, `research.lab.rule_variants`)."""

from __future__ import annotations

import dataclasses
import json
import math

from ai.ismcts import final_margin, mean_and_error
from research.lab.match import MatchResult
from research.lab.tournament import wilson


def variant_seat(index: int, players: int) -> int:
    """The seat the variant plays in game `index`: where `research.lab.tournament.seating` puts line-up position 0."""
    return (-index) % players


def seat_outcome(result: MatchResult, seat: int) -> tuple[float, float]:
    """(win credit, final margin over the best other seat) of `seat` in a finished game."""
    credit = 1.0 / len(result.winners) if seat in result.winners else 0.0
    return credit, final_margin(result.scores, seat)


def parse_fields(text: str, settings: type, extra: frozenset[str] = frozenset()) -> tuple[str, dict]:
    """NAME=JSON object of fields of the dataclass `settings` (and of the `extra` keys the caller reads itself);
    ValueError naming the problem otherwise."""
    name, sep, raw = text.partition("=")
    if not sep or not name:
        raise ValueError(f"variant {text!r} is not NAME=JSON")
    fields = json.loads(raw or "{}")
    if not isinstance(fields, dict):
        raise ValueError(f"variant {name}: the JSON must be an object")
    known = {f.name for f in dataclasses.fields(settings)}
    unknown = set(fields) - known - extra
    if unknown:
        raise ValueError(
            f"variant {name}: unknown {settings.__name__} fields {sorted(unknown)}; known: {sorted(known)}"
        )
    return name, fields


def summarize(results: list[tuple[str, int, float, float]], names: list[str]) -> list[str]:
    """One line per variant: win rate with a Wilson interval, mean margin, and the paired differences in win
    credit and in margin against the first variant with their standard errors (in close games the margin
    shows a change with fewer games than the win credit does)."""
    by = {n: {i: (c, m) for v, i, c, m in results if v == n} for n in names}
    first = by[names[0]]
    lines = [
        f"{'variant':<14}{'games':>7}{'wins':>9}{'rate':>8}{'95% CI':>17}{'margin':>9}"
        f"{'wins vs ' + names[0]:>24}{'margin vs ' + names[0]:>24}"
    ]
    for name in names:
        rows = by[name]
        n = len(rows)
        wins = sum(c for c, _ in rows.values())
        low, high = wilson(wins, n)
        margin = sum(m for _, m in rows.values()) / max(1, n)
        paired = [i for i in rows if i in first]
        mean, se = mean_and_error([rows[i][0] - first[i][0] for i in paired])
        gain, gain_se = mean_and_error([rows[i][1] - first[i][1] for i in paired])
        lines.append(
            f"{name:<14}{n:>7}{wins:>9.1f}{wins / max(1, n):>8.1%}  [{low:.1%}, {high:.1%}]{margin:>9.1f}"
            f"{mean:>+14.3f} ± {se:.3f}{gain:>+14.1f} ± {gain_se:.1f}"
        )
    return lines


def seat_lines(results: list[tuple[str, int, float, float]], names: list[str], players: int) -> list[str]:
    """Each variant's win rate in each seat it played (`variant_seat`): an average over seats hides how far
    a game favours one, and a change that helps only the weaker seat (2-player OpenSky's second) shows here
    first."""
    lines = [f"{'win rate in':<14}" + "".join(f"{'seat ' + str(s):>9}" for s in range(players))]
    for name in names:
        credit = [0.0] * players
        games = [0] * players
        for variant, index, won, _ in results:
            if variant == name:
                seat = variant_seat(index, players)
                credit[seat] += won
                games[seat] += 1
        cells = "".join(f"{c / g:>9.1%}" if g else f"{'-':>9}" for c, g in zip(credit, games, strict=True))
        lines.append(f"{name:<14}{cells}")
    return lines


def sprt_llr(credits: list[float], p0: float, p1: float) -> float:
    """The log-likelihood ratio of H1 (win rate `p1`) against H0 (`p0`) over games' win credits, a draw's half
    credit counting as half a win and half a loss (the usual Bernoulli approximation for game results)."""
    win, loss = math.log(p1 / p0), math.log((1 - p1) / (1 - p0))
    return sum(c * win + (1 - c) * loss for c in credits)


def sprt_verdict(credits: list[float], p0: float, p1: float, alpha: float, beta: float, cap: int | None = None) -> str:
    """Wald's sequential test over `credits` in game order: "H1" once the ratio reaches log((1-beta)/alpha), "H0"
    once it falls to log(beta/(1-alpha)); "truncated" at `cap` games without either; else "continue" (a rule written
    before the games says what a truncated test decides)."""
    upper, lower = math.log((1 - beta) / alpha), math.log(beta / (1 - alpha))
    llr = 0.0
    win, loss = math.log(p1 / p0), math.log((1 - p1) / (1 - p0))
    for n, c in enumerate(credits, start=1):
        llr += c * win + (1 - c) * loss
        if llr >= upper:
            return "H1"
        if llr <= lower:
            return "H0"
        if cap is not None and n >= cap:
            return "truncated"
    return "continue"


def prefix(indexed: dict[int, float]) -> list[float]:
    """The values of games 0, 1, 2, ... up to the first game not yet finished: a sequential test reads the games in
    the order they were scheduled, never in the order they happened to finish (a short game is not a random one)."""
    out = []
    while len(out) in indexed:
        out.append(indexed[len(out)])
    return out
