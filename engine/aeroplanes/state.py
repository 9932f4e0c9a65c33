"""The Aeroplanes position with its rules: whose decision, which decisions, and their effects.

Each phase names the pending decision; `legal_actions` lists it and `apply`
accepts exactly that list (checked before anything changes), then hands off to
the module for that part of the rules.
"""

from __future__ import annotations

import random
from typing import Any

from engine.aeroplanes import claims, era, placement
from engine.aeroplanes import dice as D
from engine.aeroplanes.actions import (
    KINDS,
    Abort,
    BuyAircraft,
    ChooseAction,
    ChooseHome,
    ChooseRoute,
    ClaimPassenger,
    DaringPilot,
    EndAction,
    EngineMaintenance,
    KeepRoll,
    PayShortfall,
    PickAdvantageDice,
    PlaceTile,
    RadioBeacon,
    RollAdvantage,
    RollNext,
    TakeAdvantage,
)
from engine.aeroplanes.data import DATA
from engine.aeroplanes.model import (
    ADV_TYPES,
    CARD_NUMBER,
    CARD_PAX,
    CARD_TILES,
    Model,
)
from engine.aeroplanes.placement import ADV_BEACON, ADV_MAINTENANCE, ADV_NIGHT, ADV_PILOT, ADV_PRODUCTION
from engine.aeroplanes.views import build_view
from engine.core import Action, Event, IllegalAction, State

CARDS = DATA.cards
IDS = placement.IDS
INDEX = DATA.index

#: Rule cited when an action of this type is refused.
RULE_OF = {
    ChooseHome: "AE-3.3", EngineMaintenance: "AE-11.3", ChooseAction: "AE-6.5", BuyAircraft: "AE-7.1",
    PlaceTile: "AE-8.8", ChooseRoute: "AE-8.3", KeepRoll: "AE-8.13", RadioBeacon: "AE-11.6",
    RollNext: "AE-8.15", DaringPilot: "AE-11.2", PayShortfall: "AE-8.13", Abort: "AE-8.15", EndAction: "AE-8.1",
    ClaimPassenger: "AE-9.2", TakeAdvantage: "AE-10.4", RollAdvantage: "AE-10.1", PickAdvantageDice: "AE-10.2",
}
ROLL_NEXT = "roll_next"


class AeroState(Model, State):
    """One Aeroplanes position (seats 0..N-1 clockwise, AE-1.2)."""

    def __init__(self, game: Any) -> None:
        self.game = game
        self._legal: tuple[int, list[Action], set[int] | None] | None = None

    # ------------------------------------------------------------------ contract basics

    def to_act(self) -> list[int]:
        return [] if self.phase == "over" else [self.current]

    def is_over(self) -> bool:
        return self.phase == "over"

    def scores(self) -> list[int]:
        return self.vp[:]

    def rank_keys(self) -> list[tuple[int, ...]]:
        """AE-15.2: most VP, then most money; a full tie shares the victory."""
        return [(vp, money) for vp, money in zip(self.vp, self.money)]

    def to_json(self) -> dict[str, Any]:
        return self.fields_to_json()

    def clone(self, copy_rng: bool = True) -> AeroState:
        """A deep copy; `copy_rng=False` leaves its RNG for the caller to set (`determinize` reseeds it)."""
        copy = AeroState(self.game)
        copy.copy_fields_from(self, copy_rng)
        copy._legal = self._legal
        return copy

    def determinize(self, seat: Any, rng: random.Random) -> AeroState:
        """No seat knows anything another does not (every tile and card is public, the bag and deck are
        unordered or publicly ordered), so only future chance differs: reseed the RNG."""
        self.check_seat(seat)
        copy = self.clone(copy_rng=False)
        copy.rng = random.Random(rng.getrandbits(64))
        return copy

    def default_action(self, seat: int) -> Action:
        """Expired turn clock: end or abort what is running, keep a roll, else take a subsidy."""
        actions = self.legal_actions(seat)
        if not actions:
            raise IllegalAction(f"seat {seat} has nothing to decide", None)
        for preferred in (EndAction(), Abort(), KeepRoll(), ChooseAction("subsidy")):
            if preferred in actions:
                return preferred
        return actions[0]

    # ------------------------------------------------------------------ legal actions

    def legal_actions(self, seat: int) -> list[Action]:
        cached = self._legal
        if cached is not None and cached[0] == seat:
            return cached[1][:]
        if self.phase == "over" or seat != self.current:
            return []
        actions = self._compute_legal(seat)
        self._legal = (seat, actions, None)
        return actions[:]

    def _compute_legal(self, p: int) -> list[Action]:
        phase = self.phase
        if phase == "turn":
            out: list[Action] = []
            if self.adv[p][ADV_MAINTENANCE] and not self.maintained:  # AE-11.3: once per turn start
                out.append(_MAINTENANCE)
            out.extend(_CHOOSE[k] for k in self._legal_kinds(p))
            return out
        if phase == "home":
            taken = set(self.home)
            return [ChooseHome(IDS[d]) for d in sorted(INDEX[c] for c in _START_IDS) if d not in taken]
        if phase in ("place", "place_more"):
            out = list(placement.place_options(self, p))
            if phase == "place_more":
                out.append(EndAction())
            return out
        if phase == "route":
            pend = self.pending
            assert pend is not None
            return list(placement.routes_to(self, p, pend["target"], CARDS[pend["card"] - 1].long_haul))
        if phase == ROLL_NEXT:
            return [RollNext(), Abort()]
        if phase == "roll":
            return [KeepRoll(), RadioBeacon()]
        if phase == "shortfall":
            out = []
            pend = self.pending
            assert pend is not None
            if self.adv[p][ADV_PILOT] and placement.outside_europe(pend["target"]):
                out.append(DaringPilot())
            if self.money[p] >= placement.current_shortfall(self):
                out.append(PayShortfall())
            out.append(Abort())
            return out
        if phase == "buy":
            return self._buy_options(p)
        if phase == "claim":
            return list(claims.claim_options(self, p, placement.own_mask(self, p)))
        if phase == "claim_more":
            return [*claims.claim_options(self, p, placement.own_mask(self, p), europe_only=True), EndAction()]
        if phase == "advantage":
            return [*(TakeAdvantage(t) for t in self._available_types()), RollAdvantage()]
        if phase == "advantage_dice":
            return self._dice_pairs()
        raise AssertionError(f"unknown phase {phase}")

    def _legal_kinds(self, p: int) -> list[str]:
        """AE-6.5: an action may be chosen only if it can be carried out; subsidy always can."""
        kinds = []
        money = self.money[p]
        if any(CARDS[n - 1].price + k <= money for k, n in enumerate(self.display)):
            kinds.append("buy")
        if placement.can_place(self, p):
            kinds.append("place")
        if claims.can_claim(self, p, self.owned[p]):
            kinds.append("claim")
        if self.money[p] >= 1 and self._available_types():
            kinds.append("advantage")
        kinds.append("subsidy")
        return kinds

    def _buy_options(self, p: int) -> list[Action]:
        """AE-7.1 cost = price + position; AE-11.4 Increased Production needs the tile and a spare supply tile."""
        out: list[Action] = []
        money = self.money[p]
        production = self.era >= 2 and self.adv[p][ADV_PRODUCTION] > 0
        for k, number in enumerate(self.display):
            card = CARDS[number - 1]
            if card.price + k > money:
                continue
            out.append(BuyAircraft(number, False))
            if production and self.supply[p][card.stage] > card.tiles:
                out.append(BuyAircraft(number, True))
        return out

    def _available_types(self) -> list[int]:
        """AE-10.4: allowed in this era and at least one left in the general supply."""
        return [t for t in ADV_TYPES if DATA.advantage_from_era[t] <= self.era and self.adv_supply[t] > 0]

    def _dice_pairs(self) -> list[Action]:
        pend = self.pending
        assert pend is not None
        rolled = pend["dice"]
        wild = pend["wild"]
        pairs: set[tuple[int, int]] = set()
        for i in range(3):
            for j in range(i + 1, 3):
                for a in (wild if rolled[i] == D.SKULL else (rolled[i],)):
                    for b in (wild if rolled[j] == D.SKULL else (rolled[j],)):
                        pairs.add((min(a, b), max(a, b)))
        return [PickAdvantageDice(a, b) for a, b in sorted(pairs)]

    # ------------------------------------------------------------------ apply

    def apply(self, seat: Any, action: Any) -> list[Event]:
        # `Any`, not `int`/`Action`: compiled by mypyc, a typed parameter would answer a caller's bad seat or
        # action with a TypeError at the call instead of the IllegalAction the contract promises.
        self.check_seat(seat)
        if self.phase == "over":
            raise IllegalAction("the game is over", "AE-15.1")
        if seat != self.current:
            raise IllegalAction(f"it is seat {self.current}'s turn, not seat {seat}'s", "AE-6.1")
        self.legal_actions(seat)
        cached = self._legal
        assert cached is not None
        legal = cached[2]
        if legal is None:
            legal = {id(a) for a in cached[1]}
            self._legal = (cached[0], cached[1], legal)
        if id(action) not in legal and action not in cached[1]:
            raise IllegalAction(self._why(action), RULE_OF.get(type(action)))
        self._legal = None
        return self._dispatch(seat, action)

    def _why(self, action: Any) -> str:
        if not isinstance(action, Action):
            return f"{action!r} is not an Aeroplanes action"
        expected = sorted({type(a).TYPE for a in self._legal[1]}) if self._legal else []
        if action.TYPE not in expected:
            return f"{action.TYPE} is not a decision now (phase {self.phase}; expected {', '.join(expected)})"
        return f"{action.to_json()} is not legal now (phase {self.phase})"

    def _dispatch(self, p: int, a: Action) -> list[Event]:
        return _HANDLERS[type(a)](self, p, a)

    # ------------------------------------------------------------------ turn flow

    def _choose_home(self, p: int, city: int) -> list[Event]:
        """AE-3.3: the home tile takes a slot not marked 4/5 (slots 0 and 1 of a start city)."""
        self.home[p] = city
        slots = self.slots[city]
        slots[slots.index(-1)] = p * 4
        self.owned[p] |= 1 << city
        self.home_order.pop(0)
        events = [Event("home_chosen", {"seat": p, "city": IDS[city]})]
        if self.home_order:
            self.current = self.home_order[0]
            return events
        self.phase = "turn"
        self.current = self.first
        self.acted = 0
        return events + era.pay_income(self)

    def _maintenance(self, p: int) -> list[Event]:
        discarded = self.failures[p]
        self.failures[p] = 0
        self.maintained = True
        self._spend_advantage(p, ADV_MAINTENANCE)
        return [Event("engine_maintenance", {"seat": p, "discarded": discarded})]

    def _spend_advantage(self, p: int, kind: int) -> None:
        """AE-11.1: a used tile goes back to the general supply."""
        self.adv[p][kind] -= 1
        self.adv_supply[kind] += 1

    def _choose_action(self, p: int, kind: str) -> list[Event]:
        """AE-6.4: the turn's one action; it closes the turn start, so Engine Maintenance is offered afresh
        at the next one (AE-11.3)."""
        self.maintained = False
        event = Event("action_chosen", {"seat": p, "kind": kind})
        if kind == "subsidy":
            return self._subsidy(p, [event])
        self.phase = kind
        return [event]

    def _end_turn(self, p: int, events: list[Event]) -> list[Event]:
        """AE-6.1/6.2: next seat clockwise; after a go-around the first player rolls the first-player die."""
        self.pending = None
        self.acted += 1
        if self.acted >= self.num_players:
            roller = self.first  # the first player rolls, not the player who acted last
            roll = D.roll_first_player_die(self.rng)
            self.first = D.new_first_player(roller, roll, self.num_players)
            self.acted = 0
            events.append(Event("first_player_die", {"seat": roller, "roll": roll, "first": self.first}))
        self.current = (self.first + self.acted) % self.num_players
        self.phase = "turn"
        return events

    def _subsidy(self, p: int, events: list[Event]) -> list[Event]:
        """AE-12: a £1 note while any remain, else the marker, which ends the Action Round at once."""
        if self.notes > 0:
            self.notes -= 1
            self.money[p] += 1
            events.append(Event("subsidy", {"seat": p, "money": 1, "notes_left": self.notes}))
            return self._end_turn(p, events)
        self.marker_taker = p
        events.append(Event("subsidy_marker", {"seat": p, "era": self.era}))
        self.pending = None
        self.phase = "turn"
        events += era.end_era(self)
        return events

    # ------------------------------------------------------------------ buy (AE-7)

    def _buy(self, p: int, number: int, extra: bool) -> list[Event]:
        card = CARDS[number - 1]
        position = self.display.index(number)
        cost = card.price + position
        self.money[p] -= cost
        tiles = min(card.tiles, self.supply[p][card.stage])
        if extra:
            tiles += 1
            self._spend_advantage(p, ADV_PRODUCTION)
        self.supply[p][card.stage] -= tiles
        hand = self.cards[p]
        hand.append([number, 1, 1, card.capacity, tiles, []])
        hand.sort(key=lambda c: c[CARD_NUMBER])
        self.display.pop(position)
        if self.deck:
            self.display.append(self.deck.pop(0))
            self.display.sort()
        events = [Event("aircraft_bought", {"seat": p, "card": number, "cost": cost, "tiles": tiles,
                                            "increased_production": extra, "display": self.display[:]})]
        return self._end_turn(p, events)

    # ------------------------------------------------------------------ place (AE-8)

    def _place_tile(self, p: int, a: PlaceTile) -> list[Event]:
        target = INDEX[a.target]
        if a.replace == p:  # AE-8.7 upgrade: no route, no risk.
            events = placement.put_tile(self, p, a.card, target, a.replace)
            return self._after_success(p, events)
        self.pending = {"card": a.card, "target": target, "replace": a.replace}
        self.phase = "route"
        return [Event("placement_declared", {"seat": p, "card": a.card, "target": a.target, "replace": a.replace})]

    def _choose_route(self, p: int, a: ChooseRoute) -> list[Event]:
        pend = self.pending
        assert pend is not None
        source = INDEX[a.source]
        via = None if a.via is None else INDEX[a.via]
        rolls = placement.required_rolls(self, p, source, via, pend["target"])
        self.pending = {**pend, "source": source, "via": via, "rolls": rolls, "i": 0, "dice": [], "pilots": 0}
        events = [Event("route_declared", {"seat": p, "source": a.source, "via": a.via,
                                           "rolls": [list(r) for r in rolls]})]
        return events + self._roll_or_succeed(p)

    def _roll_or_succeed(self, p: int) -> list[Event]:
        """Roll the next required roll, or place the tile when none is left (AE-8.16)."""
        pend = self.pending
        assert pend is not None
        if pend["i"] >= len(pend["rolls"]):
            events = placement.put_tile(self, p, pend["card"], pend["target"], pend["replace"])
            return self._after_success(p, events)
        events = placement.roll_now(self, p)
        if self.era == 3 and self.adv[p][ADV_BEACON]:
            self.phase = "roll"
            return events
        return events + self._keep_roll(p)

    def _beacon(self, p: int) -> list[Event]:
        self._spend_advantage(p, ADV_BEACON)
        events = [Event("radio_beacon", {"seat": p})]
        events += placement.roll_now(self, p)
        if not self.adv[p][ADV_BEACON]:
            return events + self._keep_roll(p)
        return events

    def _keep_roll(self, p: int) -> list[Event]:
        """AE-8.13 steps 3-5: skulls first (4 failures end everything), then the total."""
        pend = self.pending
        assert pend is not None
        events: list[Event] = []
        failures = D.skulls(pend["dice"])
        if failures:
            self.failures[p] += failures
            events.append(Event("engine_failures", {"seat": p, "new": failures, "total": self.failures[p]}))
            if self.failures[p] >= 4:
                return events + self._four_failures(p)
        short = placement.current_shortfall(self)
        if short == 0:
            return events + self._roll_succeeded(p)
        self.phase = "shortfall"
        events.append(Event("shortfall", {"seat": p, "missing": short}))
        return events

    def _four_failures(self, p: int) -> list[Event]:
        """AE-8.14: the tile goes to the supply, all failures are discarded, the Place action ends."""
        pend = self.pending
        assert pend is not None
        number = pend["card"]
        placement.find_card(self, p, number)[CARD_TILES] -= 1
        self.supply[p][CARDS[number - 1].stage] += 1
        self.failures[p] = 0
        return self._end_turn(p, [Event("attempt_crashed", {"seat": p, "card": number})])

    def _roll_succeeded(self, p: int) -> list[Event]:
        pend = self.pending
        assert pend is not None
        self.pending = {**pend, "i": pend["i"] + 1}
        if self.pending["i"] < len(pend["rolls"]):
            self.phase = ROLL_NEXT
            return []
        return self._roll_or_succeed(p)

    def _pilot(self, p: int) -> list[Event]:
        pend = self.pending
        assert pend is not None
        self._spend_advantage(p, ADV_PILOT)
        self.pending = {**pend, "pilots": pend["pilots"] + 1}
        events = [Event("daring_pilot", {"seat": p, "missing": placement.current_shortfall(self)})]
        if placement.current_shortfall(self) == 0:
            return events + self._roll_succeeded(p)
        return events

    def _pay(self, p: int) -> list[Event]:
        short = placement.current_shortfall(self)
        self.money[p] -= short
        return [Event("shortfall_paid", {"seat": p, "money": short}), *self._roll_succeeded(p)]

    def _abort(self, p: int) -> list[Event]:
        """AE-8.15: the tile stays on its card; the action ends with no further placements."""
        pend = self.pending
        assert pend is not None
        return self._end_turn(p, [Event("attempt_failed", {"seat": p, "card": pend["card"]})])

    def _after_success(self, p: int, events: list[Event]) -> list[Event]:
        """AE-8.1: the player may start another attempt, or stop (automatic when none is possible)."""
        self.pending = None
        if placement.can_place(self, p):
            self.phase = "place_more"
            return events
        return self._end_turn(p, events)

    # ------------------------------------------------------------------ claim (AE-9, AE-11.5)

    def _claim(self, p: int, a: ClaimPassenger) -> list[Event]:
        extra = self.phase == "claim_more"
        if extra:
            self._spend_advantage(p, ADV_NIGHT)
        where = claims.take_tile(self, p, a.tile, a.card)
        events = [Event("passenger_claimed", {"seat": p, "tile": a.tile, "card": a.card, "from": where,
                                              "night_flights": extra})]
        if self.adv[p][ADV_NIGHT] and claims.claim_options(self, p, placement.own_mask(self, p), europe_only=True):
            self.phase = "claim_more"
            return events
        return self._end_turn(p, events)

    # ------------------------------------------------------------------ advantage (AE-10)

    def _take_advantage(self, p: int, kind: int) -> list[Event]:
        self.money[p] -= 1
        self.adv[p][kind] += 1
        self.adv_supply[kind] -= 1
        return self._end_turn(p, [Event("advantage_bought", {"seat": p, "kind": kind, "money": 1})])

    def _roll_advantage(self, p: int) -> list[Event]:
        self.money[p] -= 1
        rolled = D.roll_risk(self.rng)
        self.pending = {"dice": rolled, "wild": self._available_types()}
        self.phase = "advantage_dice"
        return [Event("advantage_roll", {"seat": p, "dice": rolled, "money": 1})]

    def _pick_dice(self, p: int, a: PickAdvantageDice) -> list[Event]:
        """AE-10.2: each chosen result gives its type if that type is available, else nothing."""
        gained = []
        for kind in (a.first, a.second):
            if kind in ADV_TYPES and DATA.advantage_from_era[kind] <= self.era and self.adv_supply[kind] > 0:
                self.adv_supply[kind] -= 1
                self.adv[p][kind] += 1
                gained.append(kind)
        return self._end_turn(p, [Event("advantage_gained", {"seat": p, "kinds": gained})])

    # ------------------------------------------------------------------ where components are

    def holdings(self) -> dict[str, dict[str, int]]:
        """Aircraft cards (`card:<n>`) and passenger tiles (`tile:<id>`), all public: display, deck, bag,
        waiting area, overflow, removed tiles, and each seat's aircraft, carried and set-aside passengers."""
        out = {
            "display": _names("card", self.display),
            "deck": _names("card", self.deck),
            "bag": _names("tile", self.bag),
            "waiting": _names("tile", [t for t in self.waiting if t]),
            "overflow": _names("tile", self.overflow),
            "removed": _names("tile", self.removed),
        }
        for p in range(self.num_players):
            out[f"aircraft:{p}"] = _names("card", [c[CARD_NUMBER] for c in self.cards[p]])
            out[f"carried:{p}"] = _names("tile", [t for c in self.cards[p] for t in c[CARD_PAX]])
            out[f"set_aside:{p}"] = _names("tile", self.set_aside[p])
        return out

    # ------------------------------------------------------------------ view

    def view(self, seat: Any) -> dict[str, Any]:
        """Everything is public in Aeroplanes; only the RNG (future chance) is withheld."""
        if seat is not None:
            self.check_seat(seat)
        return build_view(self, seat)


def _names(kind: str, ids: list[int]) -> dict[str, int]:
    """Component counts by name, e.g. {"card:13": 1}."""
    out: dict[str, int] = {}
    for i in ids:
        name = f"{kind}:{i}"
        out[name] = out.get(name, 0) + 1
    return out


_START_IDS = tuple(d.id for d in DATA.destinations if d.start)
_CHOOSE = {k: ChooseAction(k) for k in KINDS}
_MAINTENANCE = EngineMaintenance()


_HANDLERS = {
    ChooseHome: lambda s, p, a: s._choose_home(p, INDEX[a.city]),
    EngineMaintenance: lambda s, p, a: s._maintenance(p),
    ChooseAction: lambda s, p, a: s._choose_action(p, a.kind),
    BuyAircraft: lambda s, p, a: s._buy(p, a.card, a.extra),
    PlaceTile: lambda s, p, a: s._place_tile(p, a),
    ChooseRoute: lambda s, p, a: s._choose_route(p, a),
    KeepRoll: lambda s, p, a: s._keep_roll(p),
    RollNext: lambda s, p, a: s._roll_or_succeed(p),
    RadioBeacon: lambda s, p, a: s._beacon(p),
    DaringPilot: lambda s, p, a: s._pilot(p),
    PayShortfall: lambda s, p, a: s._pay(p),
    Abort: lambda s, p, a: s._abort(p),
    EndAction: lambda s, p, a: s._end_turn(p, [Event("action_ended", {"seat": p})]),
    ClaimPassenger: lambda s, p, a: s._claim(p, a),
    TakeAdvantage: lambda s, p, a: s._take_advantage(p, a.kind),
    RollAdvantage: lambda s, p, a: s._roll_advantage(p),
    PickAdvantageDice: lambda s, p, a: s._pick_dice(p, a),
}
