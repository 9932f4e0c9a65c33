"""The account-stream events of one committed version: `your_turn` to the owner of each seat with a new decision,
or `game_end` to every seated account once the game is over (the consumer publishes them: consumer.py)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from services.common.standings import shown_scores, shown_winners


def new_turns(to_act: Sequence[int], before: Sequence[int] | None, actor: int | None) -> list[int]:
    """Seats with a new decision: newly in `to_act`, or the one that just acted and must act again. Without
    `before` (the game's creation) every seat in `to_act`."""
    if before is None:
        return list(to_act)
    return [s for s in to_act if s not in before or s == actor]


def version_events(game_id: str, seats: Mapping[int, str], status: str, version: int, to_act: list[int],
                   before: list[int] | None, actor: int | None, scores: list[int], winners: list[int],
                   deadlines: Mapping[int, int]) -> list[tuple[str, str, dict[str, Any]]]:
    """(player id, type, data) of one version: `game_end` to every seated account once the game is over, else
    `your_turn` to the owner of each seat with a new decision. Events name only the seat's own owner
    (`your_turn`) or carry what every seat may know (`game_end`)."""
    if status != "active":  # finished or aborted
        return [(pid, "game_end", {"game_id": game_id, "seat": seat, "status": status,
                                   "scores": shown_scores(status, scores), "winners": shown_winners(status, winners)})
                for seat, pid in sorted(seats.items())]
    return [(seats[seat], "your_turn", {"game_id": game_id, "seat": seat, "version": version,
                                        "deadline": deadlines.get(seat)})
            for seat in new_turns(to_act, before, actor) if seat in seats]
