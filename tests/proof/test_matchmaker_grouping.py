"""The n log n grouping of the matchmaker forms exactly the groups of the original quadratic one
(kept here as the reference) on random queues: ties of rating distance, equal ratings, one player with
several tickets, anchors past their bot-fill time, wide and narrow gaps."""

from __future__ import annotations

import random
import time
from collections.abc import Sequence

from hypothesis import given, settings
from hypothesis import strategies as st

from services.matchmaker.grouping import Group, allowed_gap, form_groups
from services.matchmaker.store import Ticket


def reference_form_groups(
    tickets: Sequence[Ticket], seats: int, now_ms: int, base_gap: float, gap_per_s: float
) -> list[Group]:
    """The original implementation (before the bench): every anchor sorts every unused ticket."""
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


NOW = 10_000_000


def _tickets(rng: random.Random, n: int, ratings: list[float], players: int) -> list[Ticket]:
    return [
        Ticket(ticket_id=f"{rng.randrange(16**8):08x}{i:04d}", player_id=f"p{rng.randrange(players)}",
               game="toybids", players=3, options={}, bots_after_s=rng.choice([0.0, 5.0, 3600.0]),
               created_ms=NOW - rng.randrange(20_000), rating=rng.choice(ratings), status="queued")
        for i in range(n)
    ]


@settings(max_examples=200, deadline=None)
@given(seed=st.integers(0, 2**32), n=st.integers(0, 60), seats=st.integers(2, 5),
       base_gap=st.sampled_from([0.0, 1.0, 2.5, 5.0, 40.0]), per_s=st.sampled_from([0.0, 0.1, 1.0]))
def test_fast_grouping_equals_the_reference(seed, n, seats, base_gap, per_s) -> None:
    rng = random.Random(seed)
    ratings = [rng.choice([-3.0, -0.5, 0.0, 0.1, 0.2, 0.5, 1.0, 2.5, 3.0, 7.25, 1e-9]) for _ in range(6)]
    tickets = _tickets(rng, n, ratings + [rng.uniform(-10, 10) for _ in range(3)], max(1, n // 2))
    assert form_groups(tickets, seats, NOW, base_gap, per_s) == reference_form_groups(
        tickets, seats, NOW, base_gap, per_s)


def test_ten_thousand_tickets_group_in_well_under_a_second() -> None:
    tickets = _tickets(random.Random(1), 10_000, [0.0], 10_000)
    start = time.perf_counter()
    groups = form_groups(tickets, 4, NOW, 5.0, 1.0)
    assert time.perf_counter() - start < 2.0, "the reference took ~20 s here"
    assert sum(len(g.tickets) for g in groups) == 10_000
