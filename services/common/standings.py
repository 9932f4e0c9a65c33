"""A game's result as the platform shows it: the engine's standing, with the seats that left ranked last.

Why one module: the game view, the streams, the history, the archive, the ratings and the web client must
agree on who won, and forfeits are the platform's rule about seats, not any game's (the engines' own standings
are never touched). The rule, as Lichess and BGA apply it:
- A *forfeited* seat is one its player resigned or abandoned (timeouts, inactivity). It is played out by the
  zombie bot but ranks below every other seat and is never among the winners, whatever it scores.
- When at most one seat is left unforfeited the game ends at once (a 2-player resignation or abandonment): the
  seat left wins, with the scores as they stood. If no seat is left (both abandoned at once), nobody wins.
- An aborted game has no result: no scores and no winners (`shown_scores`, `shown_winners`).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence


def seats_left(players: int, forfeited: Collection[int]) -> list[int]:
    """The seats still held by their players or by the bots they were created with."""
    return [s for s in range(players) if s not in forfeited]


def ends_by_forfeit(players: int, forfeited: Collection[int]) -> bool:
    """True once at most one seat is left unforfeited: nobody is left to play against."""
    return bool(forfeited) and len(seats_left(players, forfeited)) <= 1


def ranks(scores: Sequence[int], engine_winners: Sequence[int], forfeited: Collection[int] = ()) -> list[int]:
    """Placement per seat (1 = first): the engine's winners first (its tie-break already applied), then by score,
    ties shared; forfeited seats rank below every other seat, tied among themselves."""
    out = set(forfeited)
    ranked = [seat for seat in range(len(scores)) if seat not in out]
    winner_set = set(engine_winners) - out
    others = sorted({scores[seat] for seat in ranked if seat not in winner_set}, reverse=True)
    first_other = 2 if winner_set else 1
    placed = [0] * len(scores)
    for seat in ranked:
        placed[seat] = 1 if seat in winner_set else first_other + others.index(scores[seat])
    bottom = max((placed[seat] for seat in ranked), default=0) + 1
    for seat in out:
        placed[seat] = bottom
    return placed


def winners(
    players: int, scores: Sequence[int], engine_winners: Sequence[int], forfeited: Collection[int], engine_over: bool
) -> list[int]:
    """The platform's winners of a finished game: the unforfeited seats placed first. `engine_over` False means
    the game ended by forfeit before the engine's end: the one seat left wins (nobody if none is left)."""
    left = seats_left(players, forfeited)
    if not engine_over:
        return left if len(left) == 1 else []
    placed = ranks(scores, engine_winners, forfeited)
    return [s for s in left if placed[s] == 1]


def shown_scores(status: str, scores: list[int]) -> list[int] | None:
    """Scores as the public API shows them: none for an aborted game (it has no result)."""
    return None if status == "aborted" else scores


def shown_winners(status: str, winners: list[int]) -> list[int] | None:
    """Winners as the public API shows them: only once the game is finished."""
    return winners if status == "finished" else None
