"""Blue Skies game state: representation, setup (BS-7), the board's primitives and the decisions (BS-5, BS-8).

Representation, chosen for fast playouts:
- airports are board indices 0..29; cards are airport indices;
- `pax[a]` is the airport's passenger count P and `gates[a]` the owners of its
  open gates in space order (a seat, or LOCAL = -1); per-gate counts are derived
  (BS-4.2), and `income` is updated incrementally around every change;
- deck, discard pile and hands are sorted lists (multisets without order), the
  bag is two counts; every draw is uniform from what remains (BS-3.1, BS-6);
- what each seat knows of the deck beyond the unseen cards: `deck_cap`, `deck_sure`, `deck_blind`
  (knowledge.py, with determinisation).
The round's flow is in flow.py and the views in views.py.
Seats are 0-based (the spec's players are unnumbered; "first player" is a seat).
"""

from __future__ import annotations

import random
from bisect import insort
from collections.abc import Callable
from itertools import compress
from typing import Any

from engine.blueskies import actions as act
from engine.blueskies.constants import (
    AIRPORTS,
    BUY,
    BUYOUT_COST,
    CODES,
    COSTS,
    FULL,
    FULL_DECK,
    HAND,
    HELP,
    HELP_DISCARD,
    LOCAL,
    N_AIRPORTS,
    OVER,
    PHASES,
    PLAY,
    SETUP_BUY,
    SPACES,
    SPECIAL_DISCARD,
)
from engine.blueskies.data import BOARD
from engine.blueskies.flow import advance, start_purchase_turn
from engine.blueskies.knowledge import determinize, note_draw, note_help_discard
from engine.blueskies.passengers import draw_operation
from engine.blueskies.views import build_view, holdings, json_copy
from engine.core import JSON, Action, Event, Game, IllegalAction, State, clone_rng, rng_to_json


def _next_cost(costs: tuple[int, ...], opened: int) -> int:
    return costs[opened] if opened < len(costs) else FULL


class BlueSkiesState(State):
    """One Blue Skies position. Mutable; `apply` validates fully before changing anything.

    The contract's entry points take `seat: Any` (and `apply` any action) because they validate them:
    compiled by mypyc (`make compile`), a parameter typed `int` would turn `True` into seat 1, and one typed
    `Action` would raise TypeError, before any check could refuse them with IllegalAction."""

    __slots__ = (
        "actor",
        "added",
        "budget",
        "buyable",
        "deck",
        "deck_blind",
        "deck_cap",
        "deck_sure",
        "discard",
        "final",
        "first",
        "gates",
        "green",
        "hands",
        "help_chosen",
        "help_entitlement",
        "help_used",
        "income",
        "nextcost",
        "num_players",
        "pax",
        "phase",
        "points",
        "pos",
        "red",
        "rng",
        "round",
        "special_used",
        "supply",
    )

    game: Game

    # ------------------------------------------------------------------ construction

    def __init__(self, game: Game, players: int, rng: random.Random, *, tables: bool = True):
        """A fresh game before setup; `tables=False` skips building its tables, for `clone`, which assigns
        every one (a class compiled by mypyc can only be allocated through its __init__)."""
        self.game = game
        self.num_players = players
        self.rng = rng
        if tables:
            self._fresh_tables(players)

    def _fresh_tables(self, players: int) -> None:
        self.first = 0
        self.round = 0
        self.phase = SETUP_BUY
        self.pos = 0
        self.actor = 0
        self.budget = 0
        self.added = 0
        self.points = [0] * players
        self.income = [0] * players
        self.supply = [BOARD.gates_per_player] * players
        self.special_used = [False] * players
        self.hands: list[list[int]] = [[] for _ in range(players)]
        self.deck = list(FULL_DECK)
        self.discard: list[int] = []
        self.red = BOARD.red
        self.green = BOARD.green
        self.pax = [0] * N_AIRPORTS
        self.gates: list[list[int]] = [[] for _ in AIRPORTS]
        costs = COSTS[players]
        self.nextcost = [_next_cost(costs[a], 0) for a in AIRPORTS]
        self.buyable: list[int] = []  # airports with a local gate that may be bought out (BS-5.4)
        self.help_used = False
        self.help_entitlement = [0] * players
        self.help_chosen: list[int] = []
        self.final: dict[str, JSON] | None = None
        self.deck_cap: list[list[int] | None] = [None] * players
        self.deck_sure: list[list[int]] = [[] for _ in range(players)]
        self.deck_blind = [0] * players

    def setup(self, first: int | None) -> list[Event]:
        """BS-7.1-7.5, then hand the first purchase turn to the last player (BS-7.6)."""
        n = self.num_players
        events: list[Event] = []
        self.first = self.rng.randrange(n) if first is None else first
        events.append(Event("first_player", {"seat": self.first}))
        locals_: list[int] = []
        for _ in range(BOARD.setup_local_cards):
            card = self._reveal(events)
            if card is not None and card not in locals_:
                locals_.append(card)
        for a in sorted(locals_):
            self._open_local(a, events)
        for _ in range(3 * n):
            self._reveal(events)
        for k in range(n):
            seat = (self.first + k) % n
            self._draw_to_hand(seat, HAND, events)
        self.phase = SETUP_BUY
        self.pos = 0
        start_purchase_turn(self)
        return events

    def rebuild_derived(self) -> None:
        """Recompute income, next costs and buyable locals from `pax` and `gates` (after a restore)."""
        n = self.num_players
        costs = COSTS[n]
        self.nextcost = [_next_cost(costs[a], len(self.gates[a])) for a in AIRPORTS]
        self.buyable = [a for a in AIRPORTS if self.gates[a][:1] == [LOCAL] and BUYOUT_COST[a] != FULL]
        self.income = [0] * n
        for a in AIRPORTS:
            self._credit(a, 1)

    # ------------------------------------------------------------------ chance and board primitives

    def _draw_card(self, events: list[Event]) -> int | None:
        """Uniform draw from the deck; reshuffle the discard pile when empty (BS-6.3)."""
        deck = self.deck
        if not deck:
            if not self.discard:
                events.append(Event("deck_empty", {}))
                return None
            self.deck = deck = self.discard
            self.discard = []
            events.append(Event("reshuffle", {"cards": len(deck)}))
            for s in range(self.num_players):  # everyone saw the face-up pile become the deck
                self.deck_cap[s] = deck[:]
                self.deck_sure[s] = deck[:]
                self.deck_blind[s] = 0
        return deck.pop(int(self.rng.random() * len(deck)))

    def _draw_to_hand(self, seat: int, count: int, events: list[Event]) -> None:
        """Draw up to `count` cards into the hand (fewer only when nothing is left, BS-6.3).

        Everyone learns how many were drawn; only the drawer learns which (BS-6.1).
        """
        hand = self.hands[seat]
        drawn = []
        for _ in range(count):
            card = self._draw_card(events)
            if card is None:
                break
            note_draw(self, card, seat)
            insort(hand, card)
            drawn.append(CODES[card])
        if drawn:
            events.append(Event("draw", {"seat": seat, "count": len(drawn)}))
            events.append(Event("draw_cards", {"seat": seat, "cards": drawn}, (seat,)))

    def _refill(self, seat: int, events: list[Event]) -> None:
        """Draw until holding a full hand, or until nothing is left to draw (BS-6.3)."""
        missing = HAND - len(self.hands[seat])
        if missing > 0:
            self._draw_to_hand(seat, missing, events)

    def _reveal(self, events: list[Event]) -> int | None:
        """Reveal a card for passengers, resolve it, discard it (BS-6.4, BS-6.2)."""
        card = self._draw_card(events)
        if card is not None:
            note_draw(self, card, -1)
            red, green = self._add_passengers(card)
            events.append(Event("reveal", {"card": CODES[card], "red": red, "green": green}))
            insort(self.discard, card)
        return card

    def _credit(self, a: int, sign: int) -> None:
        """Add (sign=1) or remove (sign=-1) airport a's passengers from its owners' income (BS-2.6)."""
        owners = self.gates[a]
        g = len(owners)
        if g:
            q, r = divmod(self.pax[a], g)
            income = self.income
            for i, owner in enumerate(owners):
                if owner >= 0:
                    income[owner] += sign * (q + 1 if i < r else q)

    def _add_passengers(self, a: int) -> tuple[int, int]:
        """One add-passengers operation at airport a, then redistribution (BS-3.2, BS-3.3).

        Returns the (red, green) cubes placed; the caller reports them in its event.
        """
        red, greens, self.red, self.green = draw_operation(self.rng, self.red, self.green)
        cubes = red + greens
        if cubes:
            owners = self.gates[a]
            g = len(owners)
            before = self.pax[a]
            self.pax[a] = after = before + cubes
            if g:  # income moves by the change of each gate's share (BS-4.1)
                q0, r0 = divmod(before, g)
                q1, r1 = divmod(after, g)
                income = self.income
                for i, owner in enumerate(owners):
                    if owner >= 0:
                        income[owner] += (q1 + (i < r1)) - (q0 + (i < r0))
        return red, greens

    def _open_local(self, a: int, events: list[Event]) -> None:
        """A local-airline gate on space 1 of an airport with no open gate (BS-5.7)."""
        self.gates[a].append(LOCAL)
        if BUYOUT_COST[a] != FULL:
            insort(self.buyable, a)
        self.nextcost[a] = _next_cost(COSTS[self.num_players][a], 1)
        events.append(Event("local_gate", {"airport": CODES[a]}))

    def _open_gate(self, seat: int, a: int) -> None:
        owners = self.gates[a]
        if self.pax[a]:  # full redistribution (BS-4.2)
            self._credit(a, -1)
            owners.append(seat)
            self._credit(a, 1)
        else:
            owners.append(seat)
        self.nextcost[a] = _next_cost(COSTS[self.num_players][a], len(owners))

    # ------------------------------------------------------------------ contract: queries

    def to_act(self) -> list[int]:
        return [] if self.phase == OVER else [self.actor]

    def is_over(self) -> bool:
        return self.phase == OVER

    def scores(self) -> list[int]:
        return list(self.points)

    def rank_keys(self) -> list[tuple[int, ...]]:
        """BS-9.4: the highest score; tied, the higher income; still tied, the victory is shared."""
        return [(points, income) for points, income in zip(self.points, self.income)]

    def legal_actions(self, seat: int) -> list[Action]:
        if seat != self.actor or self.phase == OVER:
            return []
        phase = self.phase
        if phase in (BUY, SETUP_BUY):
            return self._purchase_actions(seat)
        if phase == PLAY:
            hand = self.hands[seat]
            out: list[Action] = []
            last = -1
            for c in hand:
                if c != last:
                    out.append(act.PLAY[c])
                    last = c
            if not self.special_used[seat]:
                out.extend(act.SPECIAL)
            return out
        if phase == HELP:
            chosen = self.help_chosen
            out = [act.HELP[a] for a in AIRPORTS if a not in chosen]
            out.append(act.HELP_DONE)
            return out
        return list(act.discard_options(self.hands[seat]))

    def _purchase_actions(self, seat: int) -> list[Action]:
        if self.supply[seat] <= 0 or (self.phase == SETUP_BUY and self.added >= BOARD.setup_max_gates):
            return [act.DONE]
        budget = self.budget
        out: list[Action] = list(compress(act.BUY, map(budget.__ge__, self.nextcost)))
        for a in self.buyable:
            if BUYOUT_COST[a] <= budget:
                out.append(act.BUYOUT[a])
        out.append(act.DONE)
        return out

    def default_action(self, seat: int) -> Action:
        """Expired clock: end purchases / help, play the first card in hand, discard nothing."""
        actions = self.legal_actions(seat)
        if not actions:
            raise IllegalAction(f"seat {seat} has nothing to decide", None)
        phase = self.phase
        if phase in (BUY, SETUP_BUY):
            return act.DONE
        if phase == HELP:
            return act.HELP_DONE
        return actions[0]

    # ------------------------------------------------------------------ contract: apply

    def apply(self, seat: Any, action: Any) -> list[Event]:
        if type(seat) is not int or seat != self.actor:
            self.check_seat(seat)
            if self.phase == OVER:
                raise IllegalAction("the game is over", "BS-9.1")
            raise IllegalAction(f"it is seat {self.actor}'s turn, not seat {seat}'s", "BS-8")
        handler = _HANDLERS.get(type(action))
        if handler is None:
            raise IllegalAction(f"{action!r} is not a Blue Skies action", None)
        return handler(self, seat, action)

    def _airport(self, code: Any, rule: str) -> int:
        try:
            return act.INDEX[code]
        except (KeyError, TypeError):
            raise IllegalAction(f"unknown airport {code!r}", rule) from None

    def _check_purchase(self, seat: int) -> None:
        if self.phase != BUY and self.phase != SETUP_BUY:
            raise IllegalAction(f"gates are bought in step 1 or setup, not in phase {PHASES[self.phase]}", "BS-5.8")
        if self.supply[seat] <= 0:
            raise IllegalAction("you have no gates left in your supply", "BS-5.1")
        if self.phase == SETUP_BUY and self.added >= BOARD.setup_max_gates:
            raise IllegalAction(f"at most {BOARD.setup_max_gates} gates may be added in setup", "BS-7.6")

    def _do_buy(self, seat: int, action: act.BuyGate) -> list[Event]:
        a = self._airport(action.airport, "BS-5.1")
        self._check_purchase(seat)
        cost = self.nextcost[a]
        if cost == FULL:
            raise IllegalAction(f"{CODES[a]} has no empty usable gate space", "BS-5.1")
        if cost > self.budget:
            raise IllegalAction(f"the next gate at {CODES[a]} costs {cost}, budget left {self.budget}", "BS-5.1")
        space = SPACES[self.num_players][a][len(self.gates[a])]
        self.budget -= cost
        self.added += 1
        self.supply[seat] -= 1
        self._open_gate(seat, a)
        return [Event("gate", {"seat": seat, "airport": CODES[a], "space": space, "cost": cost})]

    def _do_buyout(self, seat: int, action: act.Buyout) -> list[Event]:
        a = self._airport(action.airport, "BS-5.4")
        self._check_purchase(seat)
        owners = self.gates[a]
        if not owners or owners[0] != LOCAL:  # checked first: without a local gate N/A is beside the point
            raise IllegalAction(f"{CODES[a]} has no local-airline gate", "BS-5.4")
        cost = BUYOUT_COST[a]
        if cost == FULL:
            raise IllegalAction(f"the local airline at {CODES[a]} cannot be bought out (N/A)", "BS-5.4")
        if cost > self.budget:
            raise IllegalAction(f"the buyout at {CODES[a]} costs {cost}, budget left {self.budget}", "BS-5.4")
        self.budget -= cost
        self.added += 1
        self.supply[seat] -= 1
        self._credit(a, -1)
        owners[0] = seat
        self.buyable.remove(a)
        self._credit(a, 1)
        return [Event("buyout", {"seat": seat, "airport": CODES[a], "cost": cost})]

    def _do_done(self, seat: int, action: act.Done) -> list[Event]:
        if self.phase != BUY and self.phase != SETUP_BUY:
            raise IllegalAction(f"'done' ends a purchase turn, not phase {PHASES[self.phase]}", "BS-5.8")
        events = [Event("done", {"seat": seat, "unspent": self.budget})]
        if self.phase == BUY and self.budget:
            self.points[seat] += self.budget  # BS-8.1.3; setup points are lost (BS-7.6)
        advance(self, events)
        return events

    def _do_play(self, seat: int, action: act.PlayCard) -> list[Event]:
        a = self._airport(action.airport, "BS-8.2.1")
        if self.phase != PLAY:
            raise IllegalAction(f"cards are played in step 2, not in phase {PHASES[self.phase]}", "BS-8.2.1")
        hand = self.hands[seat]
        if a not in hand:
            raise IllegalAction(f"you hold no {CODES[a]} card", "BS-8.2.1")
        hand.remove(a)
        red, green = self._add_passengers(a)
        events = [Event("play", {"seat": seat, "card": CODES[a], "red": red, "green": green})]
        insort(self.discard, a)
        self._draw_to_hand(seat, 1, events)
        advance(self, events)
        return events

    def _do_special(self, seat: int, action: act.Special) -> list[Event]:
        a = self._airport(action.airport, "BS-8.2.1")
        if self.phase != PLAY:
            raise IllegalAction(f"the special action is taken in step 2, not in {PHASES[self.phase]}", "BS-8.2.1")
        if self.special_used[seat]:
            raise IllegalAction("your once-per-game special action is used", "BS-8.2.3")
        self.special_used[seat] = True
        red, green = self._add_passengers(a)
        events = [Event("special", {"seat": seat, "airport": CODES[a], "red": red, "green": green})]
        self.phase = SPECIAL_DISCARD
        return events

    def _discard_cards(self, seat: int, action: act.Discard, rule: str) -> list[int]:
        """Validate a discard against the hand; return the card indices (sorted)."""
        codes = action.cards
        if not isinstance(codes, tuple):
            raise IllegalAction("cards must be a list of airport codes", rule)
        cards = sorted(self._airport(code, rule) for code in codes)  # any order is the same discard
        hand = list(self.hands[seat])
        for c in cards:
            if c not in hand:
                raise IllegalAction(f"you do not hold that many {CODES[c]} cards", rule)
            hand.remove(c)
        return cards

    def _do_discard(self, seat: int, action: act.Discard) -> list[Event]:
        phase = self.phase
        if phase == SPECIAL_DISCARD:
            cards = self._discard_cards(seat, action, "BS-8.2.1")
            hand = self.hands[seat]
            for c in cards:
                hand.remove(c)
                insort(self.discard, c)  # face up (BS-6.2)
            events = [Event("discard", {"seat": seat, "cards": [CODES[c] for c in cards]})]
            self._refill(seat, events)
            advance(self, events)
            return events
        if phase == HELP_DISCARD:
            cards = self._discard_cards(seat, action, "BS-8.6.4")
            hand = self.hands[seat]
            for c in cards:
                hand.remove(c)
                insort(self.deck, c)  # shuffled into the deck, which has no order (BS-8.6.4)
            note_help_discard(self, seat, cards)
            events = [
                Event("help_discard", {"seat": seat, "count": len(cards)}),
                Event("help_discard_cards", {"seat": seat, "cards": [CODES[c] for c in cards]}, (seat,)),
            ]
            advance(self, events)
            return events
        raise IllegalAction(f"no discard is due in phase {PHASES[phase]}", "BS-8.2.1")

    def _do_help(self, seat: int, action: act.Help) -> list[Event]:
        a = self._airport(action.airport, "BS-8.6.2")
        if self.phase != HELP:
            raise IllegalAction(f"government help is not under way (phase {PHASES[self.phase]})", "BS-8.6.1")
        if a in self.help_chosen:
            raise IllegalAction(f"you already chose {CODES[a]} for government help", "BS-8.6.3")
        self.help_chosen.append(a)
        red, green = self._add_passengers(a)
        events = [Event("help", {"seat": seat, "airport": CODES[a], "red": red, "green": green})]
        if len(self.help_chosen) >= self.help_entitlement[seat]:
            advance(self, events)
        return events

    def _do_help_done(self, seat: int, action: act.HelpDone) -> list[Event]:
        if self.phase != HELP:
            raise IllegalAction(f"government help is not under way (phase {PHASES[self.phase]})", "BS-8.6.3")
        events = [Event("help_done", {"seat": seat, "airports": len(self.help_chosen)})]
        advance(self, events)
        return events

    # ------------------------------------------------------------------ contract: views and copies

    def view(self, seat: Any) -> dict[str, JSON]:
        if seat is not None:
            self.check_seat(seat)
        return build_view(self, seat)

    def holdings(self) -> dict[str, dict[str, int]]:
        return holdings(self)

    def to_json(self) -> dict[str, JSON]:
        return {
            "game": "blueskies",
            "players": self.num_players,
            "first": self.first,
            "round": self.round,
            "phase": PHASES[self.phase],
            "pos": self.pos,
            "actor": self.actor,
            "budget": self.budget,
            "added": self.added,
            "points": list(self.points),
            "supply": list(self.supply),
            "special_used": list(self.special_used),
            "hands": [[CODES[c] for c in h] for h in self.hands],
            "deck": [CODES[c] for c in self.deck],
            "discard": [CODES[c] for c in self.discard],
            "bag": {"red": self.red, "green": self.green},
            "pax": list(self.pax),
            "gates": [list(g) for g in self.gates],
            "help_used": self.help_used,
            "help_entitlement": list(self.help_entitlement),
            "help_chosen": [CODES[a] for a in self.help_chosen],
            "final": json_copy(self.final),
            "deck_cap": [None if cap is None else [CODES[c] for c in cap] for cap in self.deck_cap],
            "deck_sure": [[CODES[c] for c in sure] for sure in self.deck_sure],
            "deck_blind": list(self.deck_blind),
            "rng": rng_to_json(self.rng),
        }

    def clone(self, copy_rng: bool = True) -> BlueSkiesState:
        """A deep copy; `copy_rng=False` shares this state's RNG object for the caller to replace before
        any use (`determinize` reseeds it; copying the RNG's state is the dearest part of a clone)."""
        new = BlueSkiesState(self.game, self.num_players, clone_rng(self.rng) if copy_rng else self.rng, tables=False)
        new.first = self.first
        new.round = self.round
        new.phase = self.phase
        new.pos = self.pos
        new.actor = self.actor
        new.budget = self.budget
        new.added = self.added
        new.points = self.points[:]
        new.income = self.income[:]
        new.supply = self.supply[:]
        new.special_used = self.special_used[:]
        new.hands = [h[:] for h in self.hands]
        new.deck = self.deck[:]
        new.discard = self.discard[:]
        new.red = self.red
        new.green = self.green
        new.pax = self.pax[:]
        new.gates = [g[:] for g in self.gates]
        new.nextcost = self.nextcost[:]
        new.buyable = self.buyable[:]
        new.help_used = self.help_used
        new.help_entitlement = self.help_entitlement[:]
        new.help_chosen = self.help_chosen[:]
        new.final = self.final  # never mutated once set
        new.deck_cap = [None if cap is None else cap[:] for cap in self.deck_cap]
        new.deck_sure = [sure[:] for sure in self.deck_sure]
        new.deck_blind = self.deck_blind[:]
        return new

    def determinize(self, seat: Any, rng: random.Random) -> BlueSkiesState:
        """Other hands dealt afresh within what `seat` knows (knowledge.py)."""
        self.check_seat(seat)
        return determinize(self, seat, rng)


_HANDLERS: dict[type, Callable[[BlueSkiesState, int, Any], list[Event]]] = {
    act.BuyGate: BlueSkiesState._do_buy,
    act.Buyout: BlueSkiesState._do_buyout,
    act.Done: BlueSkiesState._do_done,
    act.PlayCard: BlueSkiesState._do_play,
    act.Special: BlueSkiesState._do_special,
    act.Discard: BlueSkiesState._do_discard,
    act.Help: BlueSkiesState._do_help,
    act.HelpDone: BlueSkiesState._do_help_done,
}

