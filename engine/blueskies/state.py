"""Blue Skies game state: setup (BS-7), the round (BS-8), the end (BS-9).

Representation, chosen for fast playouts:
- airports are board indices 0..29; cards are airport indices;
- `pax[a]` is the airport's passenger count P and `gates[a]` the owners of its
  open gates in space order (a seat, or LOCAL = -1); per-gate counts are derived
  (BS-4.2), and `income` is updated incrementally around every change;
- deck, discard pile and hands are sorted lists (multisets without order), the
  bag is two counts; every draw is uniform from what remains (BS-3.1, BS-6);
- what each seat knows of the deck beyond the unseen cards (see `_deck_bounds`):
  `deck_cap[s]` the cards it can hold (None: any unseen card), `deck_sure[s]`
  cards known to be in it less `deck_blind[s]` hidden draws since.
Seats are 0-based (the spec's players are unnumbered; "first player" is a seat).
"""

from __future__ import annotations

import random
from bisect import insort
from collections.abc import Callable
from itertools import compress
from typing import Any

from engine.blueskies import actions as act
from engine.blueskies.data import BOARD
from engine.blueskies.passengers import draw_operation
from engine.blueskies.scoring import final_scoring, winners
from engine.core import JSON, Action, Event, Game, IllegalAction, State, clone_rng, rng_to_json

LOCAL = -1
FULL = 99  # "no usable empty space" in the next-cost table

SETUP_BUY, BUY, PLAY, SPECIAL_DISCARD, HELP, HELP_DISCARD, OVER = range(7)
PHASES = ("setup_buy", "buy", "play", "special_discard", "help", "help_discard", "over")
#: The spec's step of the round for each phase (BS-8.n); setup and the end have none.
STEPS = (None, 1, 2, 2, 6, 6, None)

N_AIRPORTS = len(BOARD.airports)
AIRPORTS = range(N_AIRPORTS)
CODES = act.CODES
FULL_DECK: tuple[int, ...] = tuple(sorted(a.index for a in BOARD.airports for _ in range(a.cards)))
BUYOUT_COST: tuple[int, ...] = tuple(FULL if a.buyout is None else a.buyout for a in BOARD.airports)
#: COSTS[players][a] = costs of the usable spaces of airport a, in space order (BS-2.1).
COSTS: dict[int, tuple[tuple[int, ...], ...]] = {
    n: tuple(tuple(c for c, m in zip(a.costs, a.min_players) if m <= n) for a in BOARD.airports) for n in range(2, 6)
}
#: SPACES[players][a] = 1-based numbers of the usable spaces of airport a.
SPACES: dict[int, tuple[tuple[int, ...], ...]] = {
    n: tuple(tuple(i + 1 for i, m in enumerate(a.min_players) if m <= n) for a in BOARD.airports) for n in range(2, 6)
}
HAND = BOARD.hand_size
#: Most copies of one airport's card: after that many hidden draws a seat can no longer be sure of any card.
MAX_COPIES = max(a.cards for a in BOARD.airports)
#: Copies of each airport's card in the game (all of them start in the deck).
FULL_COUNTS: tuple[int, ...] = tuple(a.cards for a in BOARD.airports)


def json_copy(obj: Any) -> Any:
    """A fresh copy of a JSON value (cheaper than copy.deepcopy, which memoises)."""
    if isinstance(obj, dict):
        return {k: json_copy(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [json_copy(v) for v in obj]
    return obj


def _code_counts(cards: list[int]) -> dict[str, int]:
    out: dict[str, int] = {}
    for c in cards:
        out[CODES[c]] = out.get(CODES[c], 0) + 1
    return out


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
        self._start_purchase_turn()
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

    # ------------------------------------------------------------------ what each seat knows of the deck

    def _note_draw(self, card: int, drawer: int) -> None:
        """`card` left the deck, seen by everyone (drawer -1, a reveal) or by the drawer alone: those who saw it
        drop it from their bounds, the others only know that one card they cannot name is gone."""
        for s in range(self.num_players):
            sure = self.deck_sure[s]
            if drawer < 0 or s == drawer:
                cap = self.deck_cap[s]
                if cap is not None and card in cap:
                    cap.remove(card)
                if card in sure:
                    sure.remove(card)
            elif sure:
                self.deck_blind[s] += 1
                if self.deck_blind[s] >= MAX_COPIES:  # no card can be sure any more
                    sure.clear()
                    self.deck_blind[s] = 0

    def _note_help_discard(self, seat: int, cards: list[int]) -> None:
        """BS-8.6.4: the discarder knows these cards are now in the deck; the others only that some cards of
        its hand are, so they no longer know what the deck can hold."""
        if not cards:
            return
        low = self._sure_counts(seat)
        sure = [c for c in AIRPORTS for _ in range(low[c])]
        for c in cards:
            insort(sure, c)
        self.deck_sure[seat] = sure
        self.deck_blind[seat] = 0
        for s in range(self.num_players):
            cap = self.deck_cap[s]
            if s != seat:
                self.deck_cap[s] = None
            elif cap is not None:
                for c in cards:
                    insort(cap, c)

    def _sure_counts(self, seat: int) -> list[int]:
        """Per airport, how many of its cards `seat` knows to be in the deck."""
        low = [0] * N_AIRPORTS
        for c in self.deck_sure[seat]:
            low[c] += 1
        blind = self.deck_blind[seat]
        return [k - blind if k > blind else 0 for k in low] if blind else low

    def _deck_bounds(self, seat: int) -> tuple[list[int], list[int] | None]:
        """What `seat` knows of the deck, per airport: the cards surely in it, and the most it can hold (None:
        any card the seat has not seen, i.e. not in its hand or the discard pile).

        Beyond the unseen cards, a seat knows the deck after a reshuffle (the face-up pile became it, BS-6.3),
        minus what it saw leave since, and its own government-help discards (BS-8.6.4) until others draw."""
        low = self._sure_counts(seat)
        cap = self.deck_cap[seat]
        if cap is None:
            return low, None
        unseen = list(FULL_COUNTS)
        for c in self.discard:
            unseen[c] -= 1
        for c in self.hands[seat]:
            unseen[c] -= 1
        high = [0] * N_AIRPORTS
        for c in cap:
            high[c] += 1
        return low, [min(h, u) for h, u in zip(high, unseen)]

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
            self._note_draw(card, seat)
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
            self._note_draw(card, -1)
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

    # ------------------------------------------------------------------ turn order

    def _seat_at(self, pos: int) -> int:
        if self.phase == SETUP_BUY:
            return (self.first - 1 - pos) % self.num_players
        return (self.first + pos) % self.num_players

    def _start_purchase_turn(self) -> None:
        self.actor = self._seat_at(self.pos)
        self.budget = BOARD.budget
        self.added = 0

    def _advance(self, events: list[Event]) -> None:
        """The current seat finished its part of the step: next seat, or the next step."""
        self.pos += 1
        n = self.num_players
        phase = self.phase
        if phase in (SETUP_BUY, BUY):
            if self.pos < n:
                self._start_purchase_turn()
                return
            if phase == SETUP_BUY:
                self.round = 1
                self._begin_round(events)
            else:
                self.phase = PLAY
                self.pos = 0
                self._next_player_to_play(events)
            return
        if phase in (PLAY, SPECIAL_DISCARD):
            self.phase = PLAY
            self._next_player_to_play(events)
            return
        if phase == HELP:
            self._next_helper(events)
            return
        # HELP_DISCARD
        if self.pos < n:
            self.actor = self._seat_at(self.pos)
            return
        self._after_help_discards(events)

    def _begin_round(self, events: list[Event]) -> None:
        events.append(Event("round", {"round": self.round, "first_player": self.first}))
        self.phase = BUY
        self.pos = 0
        self._start_purchase_turn()

    def _next_player_to_play(self, events: list[Event]) -> None:
        """Step 2 in turn order; a seat with no card and no special left has nothing to do."""
        n = self.num_players
        while self.pos < n:
            seat = self._seat_at(self.pos)
            if self.hands[seat] or not self.special_used[seat]:
                self.actor = seat
                return
            events.append(Event("skip_play", {"seat": seat}))
            self.pos += 1
        self._after_plays(events)

    def _after_plays(self, events: list[Event]) -> None:
        """Steps 3-5, then government help or the end of the round."""
        n = self.num_players
        for _ in range(n):  # step 3 (BS-8.3)
            self._reveal(events)
        scores = self.points
        income = self.income
        for s in range(n):  # step 4 (BS-8.4)
            scores[s] += income[s]
        events.append(Event("income", {"income": list(income), "scores": list(scores)}))
        if min(self.supply) == 0 or max(scores) >= BOARD.end_score:  # step 5 (BS-8.5)
            self._finish(events)
            return
        if not self.help_used and max(scores) >= BOARD.government_threshold:  # step 6 (BS-8.6)
            self.help_used = True
            leader = max(scores)
            self.help_entitlement = [min(N_AIRPORTS, (leader - s + 2) // 3) for s in scores]
            events.append(Event("government_help", {"entitlement": list(self.help_entitlement)}))
            self.phase = HELP
            self.pos = 0
            self._next_helper(events)
            return
        self._end_round(events)

    def _next_helper(self, events: list[Event]) -> None:
        """Next seat (turn order) entitled to government-help airports, else the discards."""
        n = self.num_players
        self.help_chosen = []
        while self.pos < n:
            seat = self._seat_at(self.pos)
            if self.help_entitlement[seat] > 0:
                self.actor = seat
                return
            self.pos += 1
        self.phase = HELP_DISCARD
        self.pos = 0
        self.actor = self._seat_at(0)

    def _after_help_discards(self, events: list[Event]) -> None:
        """Discards are already in the deck (it has no order); draw back to 3 in turn order (BS-8.6.4)."""
        for k in range(self.num_players):
            self._refill(self._seat_at(k), events)
        self._end_round(events)

    def _end_round(self, events: list[Event]) -> None:
        """Step 7 local airlines, step 8 first-player marker (BS-8.7, BS-8.8)."""
        gates = self.gates
        pax = self.pax
        for a in AIRPORTS:
            if pax[a] > 0 and not gates[a]:
                self._open_local(a, events)
        self.first = (self.first + 1) % self.num_players
        self.round += 1
        self._begin_round(events)

    def _finish(self, events: list[Event]) -> None:
        gains, breakdown = final_scoring(BOARD, self.num_players, self.gates, self.special_used)
        for s, g in enumerate(gains):
            self.points[s] += g
        breakdown["winners"] = winners(self.points, self.income)
        breakdown["scores"] = list(self.points)
        self.final = breakdown
        self.phase = OVER
        self.actor = -1
        events.append(Event("game_over", json_copy(breakdown)))

    # ------------------------------------------------------------------ contract: queries

    def to_act(self) -> list[int]:
        return [] if self.phase == OVER else [self.actor]

    def is_over(self) -> bool:
        return self.phase == OVER

    def scores(self) -> list[int]:
        return list(self.points)

    def winners(self) -> list[int]:
        if self.phase != OVER:
            return []
        return winners(self.points, self.income)

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
        self._advance(events)
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
        self._advance(events)
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
            self._advance(events)
            return events
        if phase == HELP_DISCARD:
            cards = self._discard_cards(seat, action, "BS-8.6.4")
            hand = self.hands[seat]
            for c in cards:
                hand.remove(c)
                insort(self.deck, c)  # shuffled into the deck, which has no order (BS-8.6.4)
            self._note_help_discard(seat, cards)
            events = [
                Event("help_discard", {"seat": seat, "count": len(cards)}),
                Event("help_discard_cards", {"seat": seat, "cards": [CODES[c] for c in cards]}, (seat,)),
            ]
            self._advance(events)
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
            self._advance(events)
        return events

    def _do_help_done(self, seat: int, action: act.HelpDone) -> list[Event]:
        if self.phase != HELP:
            raise IllegalAction(f"government help is not under way (phase {PHASES[self.phase]})", "BS-8.6.3")
        events = [Event("help_done", {"seat": seat, "airports": len(self.help_chosen)})]
        self._advance(events)
        return events

    # ------------------------------------------------------------------ contract: views and copies

    def view(self, seat: Any) -> dict[str, JSON]:
        if seat is not None:
            self.check_seat(seat)
        n = self.num_players
        spaces = SPACES[n]
        airports = []
        for a in AIRPORTS:
            owners = self.gates[a]
            g = len(owners)
            q, r = divmod(self.pax[a], g) if g else (0, 0)
            airports.append(
                {
                    "code": CODES[a],
                    "passengers": self.pax[a],
                    "gates": [
                        {
                            "space": spaces[a][i],
                            "owner": "local" if o == LOCAL else o,
                            "passengers": q + 1 if i < r else q,
                        }
                        for i, o in enumerate(owners)
                    ],
                    "usable_spaces": len(spaces[a]),
                    "next_cost": None if self.nextcost[a] == FULL else self.nextcost[a],
                }
            )
        discard: dict[str, int] = {}
        for c in self.discard:
            discard[CODES[c]] = discard.get(CODES[c], 0) + 1
        out: dict[str, JSON] = {
            "game": "blueskies",
            "players": n,
            "seat": seat,
            "phase": PHASES[self.phase],
            "step": STEPS[self.phase],
            "round": self.round,
            "first_player": self.first,
            "to_act": self.to_act(),
            "scores": list(self.points),
            "income": list(self.income),
            "supply": list(self.supply),
            "special_used": list(self.special_used),
            "hand_counts": [len(h) for h in self.hands],
            "hand": [CODES[c] for c in self.hands[seat]] if seat is not None else None,
            "deck_count": len(self.deck),
            "discard": discard,
            "bag": {"red": self.red, "green": self.green},
            "airports": airports,
            "budget": self.budget if self.phase in (BUY, SETUP_BUY) else None,
            "setup_gates_added": self.added if self.phase == SETUP_BUY else None,
            "government": {
                "used": self.help_used,
                "entitlement": list(self.help_entitlement),
                "chosen": [CODES[a] for a in self.help_chosen] if self.phase == HELP else [],
            },
            "final": json_copy(self.final),
            "winners": self.winners(),
            "deck_known": None if seat is None else self._deck_known_view(seat),
        }
        return out

    def _deck_known_view(self, seat: int) -> dict[str, JSON]:
        """`_deck_bounds` as codes: `at_least` the cards surely in the deck, `at_most` every card it can hold
        (codes absent cannot be in it), or None when it can hold any card the seat has not seen."""
        low, high = self._deck_bounds(seat)
        return {
            "at_least": {CODES[a]: k for a, k in enumerate(low) if k},
            "at_most": None if high is None else {CODES[a]: k for a, k in enumerate(high) if k},
        }

    def holdings(self) -> dict[str, dict[str, int]]:
        """Where every demand card is: the deck, the discard pile and each hand (`hand:<seat>`)."""
        out = {"deck": _code_counts(self.deck), "discard": _code_counts(self.discard)}
        for s, hand in enumerate(self.hands):
            out[f"hand:{s}"] = _code_counts(hand)
        return out

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
        """Deal the other seats' hands afresh from the cards `seat` has not seen (deck + their hands), keeping
        the deck within what the seat knows of it (`_deck_bounds`). The other seats' own knowledge of the deck
        is not the seat's to know: in the sample they know no more than the unseen cards."""
        self.check_seat(seat)
        new = self.clone(copy_rng=False)
        others = [s for s in range(self.num_players) if s != seat]
        if self.deck_cap[seat] is None and not self.deck_sure[seat]:
            pool = list(self.deck)
            for s in others:
                pool.extend(self.hands[s])
            pool.sort()
            # Deal only the hands, one uniform pick at a time: the deck has no order (draws are uniform picks,
            # `_draw_card`), so the rest of the pool is the deck as it is, with no shuffle of the whole pool.
            new.deck = self._deal(new, others, pool, rng)
        else:
            deck, pool = self._sample_deck(seat, others, rng)
            self._deal(new, others, pool, rng)
            new.deck = deck
        for s in others:
            new.deck_cap[s] = None
            new.deck_sure[s] = []
            new.deck_blind[s] = 0
        new.rng = random.Random(rng.getrandbits(64))
        return new

    def _deal(self, new: BlueSkiesState, others: list[int], pool: list[int], rng: random.Random) -> list[int]:
        """Deal each other seat a hand of its size from the sorted `pool` in `new`; return what is left."""
        for s in others:
            hand = [pool.pop(int(rng.random() * len(pool))) for _ in range(len(self.hands[s]))]
            hand.sort()
            new.hands[s] = hand
        return pool

    def _sample_deck(self, seat: int, others: list[int], rng: random.Random) -> tuple[list[int], list[int]]:
        """A deck within what `seat` knows of it (`_deck_bounds`): the cards surely in it, then uniform picks
        from the rest of what it can hold; and the sorted unseen cards left for the other seats' hands."""
        unseen = [0] * N_AIRPORTS
        for c in self.deck:
            unseen[c] += 1
        for s in others:
            for c in self.hands[s]:
                unseen[c] += 1
        low, high = self._deck_bounds(seat)
        if high is None:
            high = unseen
        deck = [c for c in AIRPORTS for _ in range(low[c])]
        rest = [c for c in AIRPORTS for _ in range(min(high[c], unseen[c]) - low[c])]
        for _ in range(len(self.deck) - len(deck)):
            deck.append(rest.pop(int(rng.random() * len(rest))))
        for c in deck:
            unseen[c] -= 1
        deck.sort()
        return deck, [c for c in AIRPORTS for _ in range(unseen[c])]


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

