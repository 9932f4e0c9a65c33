"""End of Month (OS-17 leasing) and the season reset (OS-18), as a mixin of OpenSkyState."""

from __future__ import annotations

from typing import Any

from engine.core import Event, IllegalAction
from engine.opensky.actions import Lease
from engine.opensky.constants import FARE_INDEX, FARES, LAST_SEASON1_MONTH, LEASE_COST, MONTHS
from engine.opensky.leasing import lease_credit, lease_options


class SeasonFlow:
    """Methods of OpenSkyState for leasing, month changes and the reset; they use the state's fields."""

    # Provided by OpenSkyState.
    num_players: int
    _start_month: Any
    _start_draft: Any

    def _can_lease(self, seat: int) -> bool:
        return self.on_board[seat] < self.S and self._table_value(seat) + self.credit[seat] >= LEASE_COST

    def _table_value(self, seat: int) -> int:
        t = self.table[seat]
        return t[0] * 200 + t[1] * 250 + t[2] * 300 + t[3] * 400 + t[4] * 500

    def _end_month(self, events: list[Event]) -> None:
        """OS-17: leasing in month order (not after March, OS-17.10), then the next month."""
        self.valid = [[] for _ in range(self.num_players)] if any(self.valid) else self.valid
        self.eligible = []
        self.market = []
        self.dice = []
        if self.month == 12:
            self.phase = "over"
            events.append(Event("game_over", {"scores": self.scores()}))
            return
        P = self.num_players
        self.lease_queue = [(self.roller + i) % P for i in range(P)]
        self._next_lessee(events)

    def _next_lessee(self, events: list[Event]) -> None:
        queue = self.lease_queue
        while queue and not self._can_lease(queue[0]):
            queue.pop(0)
        if queue:
            self.phase = "lease"
            return
        if self.month == LAST_SEASON1_MONTH:
            self._season_reset(events)
        else:
            self.month += 1
            self._start_month(events)

    def _apply_lease(self, seat: int, action: Lease) -> list[Event]:
        k, cards = action.aircraft, action.cards
        if k != 0 or cards:
            options = lease_options(tuple(self.table[seat]), self.credit[seat], self.S - self.on_board[seat])
            if (k, cards) not in options:
                raise IllegalAction(
                    f"leasing {k} aircraft with cards {list(cards)} is not a legal payment "
                    f"(table {self._table_cards(seat)}, credit {self.credit[seat]})",
                    "OS-17.3",
                )
        for c in cards:
            self.table[seat][FARE_INDEX[c]] -= 1
            self.hand[seat][FARE_INDEX[c]] += 1
        self.credit[seat] = lease_credit(self.credit[seat], cards, k)
        events = [Event("leased", {"seat": seat, "aircraft": k, "cards": list(cards), "credit": self.credit[seat]})]
        if k:
            self.phase = "lease_place"
            self.lease_left = k
        else:
            self.lease_queue.pop(0)
            self._next_lessee(events)
        return events

    def _table_cards(self, seat: int) -> list[int]:
        return [v for v, n in zip(FARES, self.table[seat]) for _ in range(n)]

    def _season_reset(self, events: list[Event]) -> None:
        """OS-18: clear the board, return cross-border tokens, draft again from seat 1."""
        for s in range(self.num_players):
            self.tokens[s] = [0] * len(self.board.routes)
            self.on_board[s] = 0
            self.xb[s] = []
        self.season = 2
        self.month = LAST_SEASON1_MONTH + 1
        events.append(Event("season_reset", {"month": MONTHS[self.month - 1]}))
        self._start_draft()
