"""A game's result, the one every surface shows: the engine's order of the seats, with the seats that left last.

Why one module: the game view (REST and gRPC), the streams, the log, the history, the archive, the ratings and the
web client must agree on who won and who placed where, and forfeits are the platform's rule about seats, not any
game's. The engine ranks the seats by its rules (`State.rank_keys`: the score, then the rules' tie-breaks) and
knows nothing of forfeits, so its views and events name no winners; this module turns those keys and the forfeits
into the result: `places` and `winners`. The game-state service computes it (services/gamestate/status.py) and
every read passes it on; nobody recomputes it from scores. The rule, as Lichess and BGA apply it:
- A *forfeited* seat is one its player resigned or abandoned (timeouts, inactivity). It is played out by the
  zombie bot but ranks below every other seat and is never among the winners, whatever it scores.
- Among the seats left the engine's order holds, tie-breaks included: a forfeited engine winner leaves the
  tie-break to decide among the others (AE-15.2, BS-9.4); a full tie shares the place and the victory.
- When at most one seat is left unforfeited the game ends at once (a 2-player resignation or abandonment): the
  seat left wins, with the scores as they stood. If no seat is left (both abandoned at once), nobody wins.
- An aborted game has no result: no scores, no winners, no places (`shown_scores`, `shown_winners`,
  `shown_places`).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence


def seats_left(players: int, forfeited: Collection[int]) -> list[int]:
    """The seats still held by their players or by the bots they were created with."""
    return [s for s in range(players) if s not in forfeited]


def ends_by_forfeit(players: int, forfeited: Collection[int]) -> bool:
    """True once at most one seat is left unforfeited: nobody is left to play against."""
    return bool(forfeited) and len(seats_left(players, forfeited)) <= 1


def places(keys: Sequence[tuple[int, ...]], forfeited: Collection[int] = ()) -> list[int]:
    """Each seat's place (1 = first) in a finished game. `keys` are the engine's rank keys (`State.rank_keys`:
    score, then the rules' tie-breaks), so the tie-break decides among the seats left even when the engine's
    own winner forfeited; equal keys share a place. Forfeited seats rank below every other seat, tied among
    themselves."""
    out = set(forfeited)
    left = [s for s in range(len(keys)) if s not in out]
    return [len(left) + 1 if seat in out else 1 + sum(1 for o in left if keys[o] > keys[seat])
            for seat in range(len(keys))]


def winners(keys: Sequence[tuple[int, ...]], forfeited: Collection[int] = ()) -> list[int]:
    """The winners of a finished game: the unforfeited seats placed first. A game ended by forfeit before the
    engine's end has at most one seat left: it wins (nobody, if none is left)."""
    placed = places(keys, forfeited)
    out = set(forfeited)
    return [s for s in range(len(keys)) if s not in out and placed[s] == 1]


def shown_scores(status: str, scores: list[int]) -> list[int] | None:
    """Scores as the public API shows them: none for an aborted game (it has no result)."""
    return None if status == "aborted" else scores


def shown_winners(status: str, winners: list[int]) -> list[int] | None:
    """Winners as the public API shows them: only once the game is finished."""
    return winners if status == "finished" else None


def shown_places(status: str, places: list[int]) -> list[int] | None:
    """Places as the public API shows them: only once the game is finished."""
    return places if status == "finished" else None
