"""The Pricing Phase of a month (OS-9 to OS-16), as a mixin of OpenSkyState.

Valid itineraries, sealed bids and their reveal, Flash Deals, ancillary fees with
the price-sensitivity check and its fallback, and the award of the market.
"""

from __future__ import annotations

import itertools
from typing import Any

from engine.core import Event, IllegalAction
from engine.opensky.actions import AddAncillaries, Bid, FlashDeal
from engine.opensky.constants import ANCILLARY, FARE_INDEX, PRICE_DIE
from engine.opensky.itineraries import player_itineraries, valid_itineraries
from engine.opensky.pricing import market_winners


class PricingFlow:
    """Methods of OpenSkyState for the Pricing Phase; they use the state's fields."""

    # Provided by OpenSkyState.
    num_players: int
    _end_month: Any
    _codes: Any
    _path_codes: Any

    def _start_pricing(self, events: list[Event]) -> None:
        """OS-9.4/9.5: valid itineraries are fixed once, at the start of pricing."""
        o, d = self.market
        per_seat: list[list[tuple[int, ...]] | None] = []
        for s in range(self.num_players):
            if any(self.hand[s]) and self.on_board[s]:
                hubs = self.hubs[s] if self.europe else None
                per_seat.append(player_itineraries(self.board, self.tokens[s], o, d, hubs))
            else:
                per_seat.append(None)
        self.valid = valid_itineraries(per_seat)
        self.eligible = [s for s in range(self.num_players) if self.valid[s]]
        self.decided = [False] * self.num_players
        self.sealed = [None] * self.num_players
        self.offers = [None] * self.num_players
        events.append(
            Event(
                "pricing_started",
                {
                    "eligible": list(self.eligible),
                    "valid_itineraries": {str(s): [self._path_codes(p) for p in self.valid[s]] for s in self.eligible},
                },
            )
        )
        if not self.eligible:
            events.append(Event("market_not_travelled", {"reason": "no valid itinerary"}))
            self._end_month(events)
        else:
            self.phase = "bid"

    def _apply_bid(self, seat: int, action: Bid) -> list[Event]:
        fi = FARE_INDEX.get(action.fare)
        if fi is None or not self.hand[seat][fi]:
            raise IllegalAction(f"seat {seat} holds no {action.fare} fare card", "OS-10.1")
        want = tuple(self.board.airport_index.get(c, -1) for c in action.itinerary)
        valid = self.valid[seat]
        # OS-3.2 / OS-8.5: a path flown either way is the same itinerary, whichever end it is written from.
        it = next((i for i, path in enumerate(valid) if path == want or path == want[::-1]), None)
        if it is None:
            raise IllegalAction(
                f"{'-'.join(action.itinerary)} is not one of seat {seat}'s valid itineraries", "OS-10.2"
            )
        return self._seal(seat, [action.fare, it])

    def _seal(self, seat: int, bid: list[int] | None) -> list[Event]:
        self.sealed[seat] = bid
        self.decided[seat] = True
        events = [Event("bid_sealed", {"seat": seat})]
        if bid is None:
            events.append(Event("my_bid", {"seat": seat, "pass": True}, (seat,)))
        else:
            events.append(
                Event(
                    "my_bid",
                    {"seat": seat, "fare": bid[0], "itinerary": self._path_codes(self.valid[seat][bid[1]])},
                    (seat,),
                )
            )
        if all(self.decided[s] for s in self.eligible):
            self._reveal(events)
        return events

    def _offer_list(self, exclude: int = -1) -> list[tuple[int, int, int]]:
        return [
            (s, o[0], len(self.valid[s][o[1]]) - 2)
            for s, o in enumerate(self.offers)
            if o is not None and s != exclude
        ]

    def _offer_json(self, s: int) -> dict[str, Any]:
        fare, it = self.offers[s]  # type: ignore[misc]
        path = self.valid[s][it]
        return {"seat": s, "fare": fare, "itinerary": self._path_codes(path), "stops": len(path) - 2}

    def _reveal(self, events: list[Event]) -> None:
        """OS-10.3: all sealed cards are revealed together."""
        for s in self.eligible:
            bid = self.sealed[s]
            if bid is not None:
                self.hand[s][FARE_INDEX[bid[0]]] -= 1
                self.offers[s] = bid
        self.sealed = [None] * self.num_players
        offers = [self._offer_json(s) for s in range(self.num_players) if self.offers[s] is not None]
        passed = [s for s in self.eligible if self.offers[s] is None]
        events.append(
            Event("bids_revealed", {"offers": offers, "passed": passed, "provisional_winners": self._provisional()})
        )
        if not offers:
            events.append(Event("market_not_travelled", {"reason": "every eligible airline passed"}))
            self._end_month(events)
            return
        self.flash_pos = self.roller
        self.flash_quiet = 0
        self._advance_flash(events)

    def _provisional(self) -> list[int]:
        return market_winners(self._offer_list())

    def _flash_eligible(self, seat: int, provisional: list[int]) -> bool:
        """OS-12.5: standing offer, token held, not sole provisional winner, a lower card."""
        offer = self.offers[seat]
        if offer is None or not self.flash_token[seat]:
            return False
        if provisional == [seat]:
            return False
        hand = self.hand[seat]
        return any(hand[i] for i in range(FARE_INDEX[offer[0]]))

    def _advance_flash(self, events: list[Event]) -> None:
        """Ask round the table until a full round passes with no Flash Deal (OS-12.5)."""
        provisional = self._provisional()
        P = self.num_players
        while self.flash_quiet < P:
            if self._flash_eligible(self.flash_pos, provisional):
                self.phase = "flash"
                return
            self.flash_quiet += 1
            self.flash_pos = (self.flash_pos + 1) % P
        self._resolve(events, provisional)

    def _apply_flash(self, seat: int, action: FlashDeal) -> list[Event]:
        fi = FARE_INDEX.get(action.fare)
        old = self.offers[seat][0]  # type: ignore[index]
        if fi is None or not self.hand[seat][fi]:
            raise IllegalAction(f"seat {seat} holds no {action.fare} fare card", "OS-12.1")
        if action.fare >= old:
            raise IllegalAction(f"a Flash Deal must be lower than the standing fare {old}", "OS-12.2")
        self.hand[seat][fi] -= 1
        self.hand[seat][FARE_INDEX[old]] += 1
        self.offers[seat][0] = action.fare  # type: ignore[index]
        self.flash_token[seat] = False
        events = [
            Event(
                "flash_deal",
                {"seat": seat, "fare": action.fare, "previous": old, "provisional_winners": self._provisional()},
            )
        ]
        self.flash_quiet = 0
        self.flash_pos = (seat + 1) % self.num_players
        self._advance_flash(events)
        return events

    def _resolve(self, events: list[Event], winners: list[int]) -> None:
        """OS-11.6: the flash deals are over; the result is final."""
        if len(winners) == 1 and self.anc[winners[0]] > 0:
            self.sole = winners[0]
            self.phase = "ancillary"
            return
        self._award(events, winners, 0)

    def _apply_ancillary(self, seat: int, action: AddAncillaries) -> list[Event]:
        n = action.tokens
        if isinstance(n, bool) or not isinstance(n, int) or not 0 <= n <= self.anc[seat]:
            raise IllegalAction(f"seat {seat} has {self.anc[seat]} unused ancillary token(s), not {n}", "OS-14.2")
        events: list[Event] = []
        if n == 0:
            self._award(events, [seat], 0)
            return events
        fare = self.offers[seat][0]  # type: ignore[index]
        price = fare + ANCILLARY * n
        roll = self.rng.choice(PRICE_DIE)
        accepted = roll >= price
        events.append(
            Event("price_check", {"seat": seat, "fare": fare, "ancillaries": n, "final_price": price,
                                  "roll": roll, "accepted": accepted})
        )
        if accepted:
            self._award(events, [seat], n)
            return events
        # OS-15.4 to OS-15.7: card back to hand, tokens stay unused, next best fare without ancillaries.
        self.hand[seat][FARE_INDEX[fare]] += 1
        self.offers[seat] = None
        self._award(events, market_winners(self._offer_list()), 0)
        return events

    def _award(self, events: list[Event], winners: list[int], ancillaries: int) -> None:
        """Winners keep their card and fly their itinerary (OS-13.3/13.4, OS-15, OS-16)."""
        if not winners:
            events.append(Event("market_not_travelled", {"reason": "no valid alternative after the price check"}))
        else:
            won = []
            for s in winners:
                fare, it = self.offers[s]  # type: ignore[misc]
                path = self.valid[s][it]
                self.table[s][FARE_INDEX[fare]] += 1
                if ancillaries:
                    self.anc[s] -= ancillaries
                    self.anc_used[s] += ancillaries
                row = self.tokens[s]
                for a, b in itertools.pairwise(path):
                    row[self.board.route_between(a, b)] -= 1  # type: ignore[index]
                self.on_board[s] -= len(path) - 1
                won.append({**self._offer_json(s), "ancillaries": ancillaries})
                self.offers[s] = None
            events.append(Event("market_won", {"winners": won, "tie": len(winners) > 1}))
        for s, offer in enumerate(self.offers):  # OS-16.2: losing cards go back to the hand
            if offer is not None:
                self.hand[s][FARE_INDEX[offer[0]]] += 1
                self.offers[s] = None
        self._end_month(events)
