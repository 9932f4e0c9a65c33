"""Which queued tickets play together (pure; no Redis, no I/O).

Tickets of one bucket are taken oldest first as anchors. An anchor accepts
tickets whose rating lies within its allowed gap, `base_gap + gap_per_s * wait`,
so the gap widens the longer the anchor waits; among those it prefers the
closest ratings. A full table forms a game; once the anchor has waited its
`bots_after_s`, whatever it has is seated and bots fill the rest. One player
never gets two seats in one game.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from services.matchmaker.store import Ticket


@dataclass(frozen=True)
class Group:
    tickets: tuple[Ticket, ...]
    seats: int

    @property
    def bots(self) -> int:
        return self.seats - len(self.tickets)


def allowed_gap(ticket: Ticket, now_ms: int, base_gap: float, gap_per_s: float) -> float:
    waited = max(0.0, (now_ms - ticket.created_ms) / 1000)
    return base_gap + gap_per_s * waited


def form_groups(
    tickets: Sequence[Ticket], seats: int, now_ms: int, base_gap: float, gap_per_s: float
) -> list[Group]:
    """Disjoint groups to create now from one bucket's queued tickets (oldest first)."""
    pool = sorted(tickets, key=lambda t: (t.created_ms, t.ticket_id))
    used: set[str] = set()
    groups = []
    for anchor in pool:
        if anchor.ticket_id in used:
            continue
        gap = allowed_gap(anchor, now_ms, base_gap, gap_per_s)
        near = sorted(
            (t for t in pool if t.ticket_id not in used and t.ticket_id != anchor.ticket_id
             and abs(t.rating - anchor.rating) <= gap),
            key=lambda t: (abs(t.rating - anchor.rating), t.created_ms, t.ticket_id),
        )
        chosen = [anchor]
        players = {anchor.player_id}
        for t in near:
            if len(chosen) == seats:
                break
            if t.player_id not in players:
                chosen.append(t)
                players.add(t.player_id)
        waited_s = (now_ms - anchor.created_ms) / 1000
        if len(chosen) == seats or waited_s >= anchor.bots_after_s:
            groups.append(Group(tuple(chosen), seats))
            used.update(t.ticket_id for t in chosen)
    return groups
