"""OpenSky game state: phases, legal actions, applying decisions, views.

Seats: the spec numbers seats from 1 (seat 1 is the youngest player, OS-1.3);
the engine numbers them from 0, so spec seat k is engine seat k-1. Months are
numbered 1 (April) to 12 (March).

Phases, in game order:
  callsign   OS-4.2    place callsign markers one at a time (skipped with callsigns=random)
  draft      OS-6      snake draft, one aircraft token per decision
  hubs       OS-20.3   Europe: hub tokens one at a time, round-robin (at the reset: keep or move, OS-20.7)
  market     OS-8.4    the roller chooses the O&D pair among the three rolled callsigns
  bid        OS-10     sealed bids: every eligible seat decides at once, hidden until all are in
  flash      OS-12     flash deals, asked one seat at a time from the roller
  ancillary  OS-14     the sole winner chooses how many ancillary tokens to attach
  lease      OS-17     each seat in month order chooses a lease; `lease_place` places the aircraft
  over       OS-19     final scores

The Pricing Phase lives in `flow_pricing.py` and End of Month, leasing and the
season reset in `flow_season.py` (mixins of OpenSkyState); views in `views.py`.

Hidden information (OS-1.5) is only a sealed bid before the reveal. A sealed
card stays counted in its owner's hand until the reveal, so hands are public.
"""

from __future__ import annotations

import itertools
import random
from typing import Any

from engine.core import Action, Event, IllegalAction, State, clone_rng, rng_from_json, rng_to_json
from engine.opensky.actions import (
    DECLINE_FLASH,
    KEEP_HUB,
    LEASE_NOTHING,
    PASS,
    AddAncillaries,
    Bid,
    ChooseMarket,
    DeclineFlash,
    FlashDeal,
    KeepHub,
    Lease,
    Pass,
    PlaceAircraft,
    PlaceCallsign,
    PlaceHub,
    canonical_itinerary,
)
from engine.opensky.board import BOARDS, Board
from engine.opensky.constants import (
    AIRCRAFT,
    ANCILLARY,
    CALLSIGNS,
    FARE_INDEX,
    FARES,
    MONTHS,
    SUBSIDY,
)
from engine.opensky.flow_pricing import PricingFlow
from engine.opensky.flow_season import SeasonFlow
from engine.opensky.leasing import lease_options
from engine.opensky.views import build_view


def draft_order(players: int) -> tuple[tuple[int, int], ...]:
    """The snake draft as (seat, tokens) turns (OS-6.2 to OS-6.4)."""
    s = AIRCRAFT[players]
    batch = s // 2
    left = [s] * players
    turns: list[tuple[int, int]] = []
    forward = True
    while any(left):
        for seat in range(players) if forward else range(players - 1, -1, -1):
            if left[seat]:
                n = min(batch, left[seat])
                turns.append((seat, n))
                left[seat] -= n
        forward = not forward
    return tuple(turns)


_DRAFTS = {p: draft_order(p) for p in AIRCRAFT}
_DICE_SETS = tuple(itertools.combinations(range(6), 3))  # OS-8.3: 20 equally likely outcomes
_PLACE_ACTIONS = {name: tuple(PlaceAircraft(code) for code in b.route_codes) for name, b in BOARDS.items()}
_CALLSIGN_ACTIONS = {name: tuple(PlaceCallsign(code) for code in b.codes) for name, b in BOARDS.items()}
_HUB_ACTIONS = {name: tuple(PlaceHub(code) for code in b.codes) for name, b in BOARDS.items()}
_FLASH_ACTIONS = tuple(FlashDeal(v) for v in FARES)
_ANCILLARY_ACTIONS = tuple(AddAncillaries(n) for n in range(4))


class OpenSkyState(PricingFlow, SeasonFlow, State):
    """One OpenSky position; all fields are plain JSON-able data except the board and RNG."""

    def __init__(self, game: Any, players: int, options: dict[str, Any], rng: random.Random):
        self.game = game
        self.num_players = players
        self.options = dict(options)
        self.board: Board = BOARDS[options["map"]]
        self.europe = not self.board.north_america
        self.rng = rng
        self.S = AIRCRAFT[players]
        self.phase = "callsign"
        self.month = 1
        self.season = 1
        self.callsigns: list[int] = []  # airport per placed callsign, in callsign order
        self.cube_owner: list[int] = []  # per callsign: seat that took the cube, -1 if still there
        self.hand = [[2] * 5 for _ in range(players)]  # counts per FARES value
        self.table = [[0] * 5 for _ in range(players)]
        self.credit = [0] * players
        self.anc = [3] * players
        self.anc_used = [0] * players
        self.flash_token = [True] * players
        self.cubes = [0] * players
        nroutes = len(self.board.routes)
        self.tokens = [[0] * nroutes for _ in range(players)]
        self.on_board = [0] * players
        self.hubs: list[list[int]] = [[] for _ in range(players)]
        self.xb: list[list[int]] = [[] for _ in range(players)]
        self.draft_turn = 0
        self.draft_left = 0
        self.hub_step = 0
        self.dice: list[int] = []
        self.market: list[int] = []
        self.valid: list[list[tuple[int, ...]]] = [[] for _ in range(players)]
        self.eligible: list[int] = []
        self.decided = [False] * players
        self.sealed: list[list[int] | None] = [None] * players  # [fare, itinerary index] or None (pass)
        self.offers: list[list[int] | None] = [None] * players
        self.flash_pos = 0
        self.flash_quiet = 0
        self.sole = -1
        self.lease_queue: list[int] = []
        self.lease_left = 0

    # ------------------------------------------------------------------ setup

    def start(self, random_callsigns: bool) -> None:
        """OS-4.1: callsigns (chosen or random), then the first draft."""
        if random_callsigns:
            self.callsigns = self.rng.sample(range(len(self.board.codes)), 6)
            self.cube_owner = [-1] * 6
            self._start_draft()

    # ------------------------------------------------------------------ contract: queries

    @property
    def roller(self) -> int:
        """OS-8.1: month m is rolled by spec seat ((m-1) mod P)+1, engine seat (m-1) mod P."""
        return (self.month - 1) % self.num_players

    def to_act(self) -> list[int]:
        phase = self.phase
        if phase == "draft":
            return [_DRAFTS[self.num_players][self.draft_turn][0]]
        if phase == "bid":
            return [s for s in self.eligible if not self.decided[s]]
        if phase == "lease" or phase == "lease_place":
            return [self.lease_queue[0]]
        if phase == "market":
            return [self.roller]
        if phase == "flash":
            return [self.flash_pos]
        if phase == "ancillary":
            return [self.sole]
        if phase == "hubs":
            return [self.hub_step % self.num_players]
        if phase == "callsign":
            return [len(self.callsigns) % self.num_players]
        return []

    def is_over(self) -> bool:
        return self.phase == "over"

    def legal_actions(self, seat: int) -> list[Action]:
        if seat not in self.to_act():
            return []
        phase = self.phase
        if phase == "draft" or phase == "lease_place":
            return self._placements(seat)
        if phase == "bid":
            return self._bids(seat)
        if phase == "flash":
            fare = self.offers[seat][0]  # type: ignore[index]
            hand = self.hand[seat]
            return [DECLINE_FLASH] + [_FLASH_ACTIONS[i] for i in range(FARE_INDEX[fare]) if hand[i]]
        if phase == "market":
            return [ChooseMarket(*self._codes(pair)) for pair in self._market_pairs()]
        if phase == "ancillary":
            return list(_ANCILLARY_ACTIONS[: self.anc[seat] + 1])
        if phase == "lease":
            options = lease_options(tuple(self.table[seat]), self.credit[seat], self.S - self.on_board[seat])
            return [LEASE_NOTHING] + [Lease(k, cards) for k, cards in options]
        if phase == "hubs":
            return self._hub_actions(seat)
        if phase == "callsign":
            taken = self.callsigns
            return [a for i, a in enumerate(_CALLSIGN_ACTIONS[self.board.name]) if i not in taken]
        return []

    def _codes(self, airports: Any) -> tuple[str, ...]:
        codes = self.board.codes
        return tuple(codes[a] for a in airports)

    def _path_codes(self, path: Any) -> list[str]:
        """An itinerary (or the O&D) as shown and logged: codes from the alphabetically first end (OS-8.5).
        Paths are kept internally from the earlier callsign; only their spelling is canonical."""
        return list(canonical_itinerary(self._codes(path)))

    def _placements(self, seat: int) -> list[Action]:
        acts = _PLACE_ACTIONS[self.board.name]
        if self.europe or len(self.xb[seat]) < 2:
            return list(acts)
        xb = self.board.cross_border
        mine = self.xb[seat]
        return [a for r, a in enumerate(acts) if not xb[r] or r in mine]

    def _bids(self, seat: int) -> list[Action]:
        out: list[Action] = [PASS]
        itins = [self._codes(p) for p in self.valid[seat]]
        hand = self.hand[seat]
        for i, fare in enumerate(FARES):
            if hand[i]:
                out.extend(Bid(fare, it) for it in itins)
        return out

    def _market_pairs(self) -> list[tuple[int, int]]:
        d = sorted(self.dice)
        cs = self.callsigns
        return [(cs[d[0]], cs[d[1]]), (cs[d[0]], cs[d[2]]), (cs[d[1]], cs[d[2]])]

    def _hub_actions(self, seat: int) -> list[Action]:
        idx = self.hub_step // self.num_players
        mine = self.hubs[seat]
        acts = _HUB_ACTIONS[self.board.name]
        if self.season == 1:
            return [a for i, a in enumerate(acts) if i not in mine]
        other = mine[1 - idx]
        here = mine[idx]
        return [KEEP_HUB] + [a for i, a in enumerate(acts) if i != other and i != here]

    def default_action(self, seat: int) -> Action:
        """Expired turn clock: the passive choice (pass, decline, lease nothing, no
        ancillaries, keep hub); placements and market choices take the first legal action."""
        actions = self.legal_actions(seat)
        if not actions:
            raise IllegalAction(f"seat {seat} has nothing to decide", None)
        return actions[0]

    # ------------------------------------------------------------------ contract: apply

    def apply(self, seat: int, action: Action) -> list[Event]:
        self.check_seat(seat)
        if seat not in self.to_act():
            raise IllegalAction(f"it is not seat {seat}'s turn to decide ({self.phase} phase)", "OS-1.4")
        phase = self.phase
        cls = type(action)
        if cls is PlaceAircraft and (phase == "draft" or phase == "lease_place"):
            return self._apply_place(seat, action)  # type: ignore[arg-type]
        if phase == "bid" and cls is Bid:
            return self._apply_bid(seat, action)  # type: ignore[arg-type]
        if phase == "bid" and cls is Pass:
            return self._seal(seat, None)
        if phase == "flash" and cls is FlashDeal:
            return self._apply_flash(seat, action)  # type: ignore[arg-type]
        if phase == "flash" and cls is DeclineFlash:
            events = [Event("flash_declined", {"seat": seat})]
            self.flash_quiet += 1
            self.flash_pos = (seat + 1) % self.num_players
            self._advance_flash(events)
            return events
        if phase == "market" and cls is ChooseMarket:
            return self._apply_market(seat, action)  # type: ignore[arg-type]
        if phase == "ancillary" and cls is AddAncillaries:
            return self._apply_ancillary(seat, action)  # type: ignore[arg-type]
        if phase == "lease" and cls is Lease:
            return self._apply_lease(seat, action)  # type: ignore[arg-type]
        if phase == "hubs" and (cls is PlaceHub or cls is KeepHub):
            return self._apply_hub(seat, action)
        if phase == "callsign" and cls is PlaceCallsign:
            return self._apply_callsign(seat, action)  # type: ignore[arg-type]
        if not isinstance(action, Action):
            raise IllegalAction(f"{action!r} is not an OpenSky action", None)
        raise IllegalAction(f"{action.TYPE!r} is not a decision of the {phase} phase", _PHASE_RULE.get(phase))

    # -- setup and placement

    def _airport(self, code: Any, rule: str) -> int:
        idx = self.board.airport_index.get(code)
        if idx is None:
            raise IllegalAction(f"{code!r} is not an airport of the {self.board.title} board", rule)
        return idx

    def _apply_callsign(self, seat: int, action: PlaceCallsign) -> list[Event]:
        a = self._airport(action.airport, "OS-4.2")
        if a in self.callsigns:
            raise IllegalAction(f"{action.airport} already holds a callsign marker", "OS-4.2")
        name = CALLSIGNS[len(self.callsigns)]
        self.callsigns.append(a)
        self.cube_owner.append(-1)
        events = [Event("callsign_placed", {"seat": seat, "callsign": name, "airport": action.airport})]
        if len(self.callsigns) == 6:
            self._start_draft()
        return events

    def _start_draft(self) -> None:
        self.phase = "draft"
        self.draft_turn = 0
        self.draft_left = _DRAFTS[self.num_players][0][1]

    def _apply_place(self, seat: int, action: PlaceAircraft) -> list[Event]:
        r = self.board.route_index.get(action.route)
        if r is None:
            raise IllegalAction(f"{action.route!r} is not a route of the {self.board.title} board", "OS-3.2")
        new_xb = False
        if self.board.cross_border[r] and r not in self.xb[seat]:
            if len(self.xb[seat]) >= 2:
                raise IllegalAction(
                    f"{action.route} is cross-border and both Cross-border tokens are placed", "OS-21.4"
                )
            new_xb = True
        events = self._place(seat, r, new_xb)
        if self.phase == "draft":
            self.draft_left -= 1
            if self.draft_left == 0:
                self.draft_turn += 1
                order = _DRAFTS[self.num_players]
                if self.draft_turn < len(order):
                    self.draft_left = order[self.draft_turn][1]
                else:
                    self._end_draft(events)
        else:
            self.lease_left -= 1
            if self.lease_left == 0:
                self.lease_queue.pop(0)
                self._next_lessee(events)
        return events

    def _place(self, seat: int, r: int, new_xb: bool) -> list[Event]:
        """One aircraft on route r, with its subsidy check (OS-7.1 to OS-7.3)."""
        self.tokens[seat][r] += 1
        self.on_board[seat] += 1
        if new_xb:
            self.xb[seat].append(r)
        code = self.board.route_codes[r]
        data: dict[str, Any] = {"seat": seat, "route": code}
        if not self.europe:
            data["cross_border_token"] = new_xb
        events = [Event("aircraft_placed", data)]
        a, b = self.board.routes[r]
        owner = self.cube_owner
        for ci, ap in enumerate(self.callsigns):
            if owner[ci] < 0 and (ap in (a, b)):
                owner[ci] = seat
                self.cubes[seat] += 1
                events.append(
                    Event("subsidy_taken", {"seat": seat, "airport": self.board.codes[ap], "callsign": CALLSIGNS[ci]})
                )
        return events

    def _end_draft(self, events: list[Event]) -> None:
        if self.europe:
            self.phase = "hubs"
            self.hub_step = 0
        else:
            self._start_month(events)

    def _apply_hub(self, seat: int, action: Action) -> list[Event]:
        idx = self.hub_step // self.num_players
        mine = self.hubs[seat]
        if isinstance(action, KeepHub):
            if self.season == 1:
                raise IllegalAction("hubs can only be kept at the season reset", "OS-20.7")
            events = [Event("hub_kept", {"seat": seat, "airport": self.board.codes[mine[idx]]})]
        else:
            a = self._airport(action.airport, "OS-20.3")  # type: ignore[attr-defined]
            other = mine[1 - idx] if self.season == 2 else (mine[0] if idx == 1 else -1)
            if a == other:
                raise IllegalAction(f"seat {seat} already has a hub at {action.airport}", "OS-20.3")  # type: ignore[attr-defined]
            if self.season == 2 and a == mine[idx]:
                raise IllegalAction("the hub is already there; keep it with keep_hub", "OS-20.7")
            if self.season == 1:
                mine.append(a)
                events = [Event("hub_placed", {"seat": seat, "airport": self.board.codes[a]})]
            else:
                events = [
                    Event("hub_moved", {"seat": seat, "from": self.board.codes[mine[idx]], "to": self.board.codes[a]})
                ]
                mine[idx] = a
        self.hub_step += 1
        if self.hub_step == 2 * self.num_players:
            self._start_month(events)
        return events

    # -- marketing

    def _start_month(self, events: list[Event]) -> None:
        """OS-8.1 to OS-8.3: the roller rolls three distinct callsigns.

        RNG use: one `rng.randrange(20)` picks one of the 20 sets of three distinct
        callsigns (listed in lexicographic order) uniformly, which OS-8.3 allows in
        place of rolling and rerolling.
        """
        self.phase = "market"
        dice = list(_DICE_SETS[self.rng.randrange(20)])
        self.dice = dice
        events.append(
            Event(
                "dice_rolled",
                {
                    "month": MONTHS[self.month - 1],
                    "roller": self.roller,
                    "callsigns": [CALLSIGNS[d] for d in dice],
                    "airports": [self.board.codes[self.callsigns[d]] for d in dice],
                },
            )
        )

    def _apply_market(self, seat: int, action: ChooseMarket) -> list[Event]:
        """OS-8.4 / OS-8.5: the pair is unordered, so it is matched whichever airport is written first."""
        board = self.board
        chosen = {board.airport_index.get(action.origin), board.airport_index.get(action.destination)}
        pair = next((p for p in self._market_pairs() if set(p) == chosen), None)
        if pair is None:
            raise IllegalAction(
                f"{action.origin}-{action.destination} is not one of the three pairs of the rolled callsigns", "OS-8.4"
            )
        self.market = list(pair)
        events = [Event("market_chosen", {"seat": seat, "origin": action.origin, "destination": action.destination})]
        self._start_pricing(events)
        return events

    # ------------------------------------------------------------------ scores

    def score_breakdown(self, seat: int) -> dict[str, int]:
        """OS-19.2/19.3: fare revenue (cards + change credit), subsidies, ancillaries."""
        fares = self._table_value(seat) + self.credit[seat]
        return {
            "fares": fares,
            "subsidies": SUBSIDY * self.cubes[seat],
            "ancillaries": ANCILLARY * self.anc_used[seat],
            "total": fares + SUBSIDY * self.cubes[seat] + ANCILLARY * self.anc_used[seat],
        }

    def scores(self) -> list[int]:
        return [
            self._table_value(s) + self.credit[s] + SUBSIDY * self.cubes[s] + ANCILLARY * self.anc_used[s]
            for s in range(self.num_players)
        ]

    # rank_keys: the engine's default, the total alone (OS-19.4: ties share the victory, no tie-break)

    # ------------------------------------------------------------------ views

    def view(self, seat: int | None) -> dict[str, Any]:
        return build_view(self, seat)

    def holdings(self) -> dict[str, dict[str, int]]:
        """Every fare card: in a hand (`hand:<seat>`, a sealed bid's card included until the reveal, OS-1.5) or
        won on a table (`table:<seat>`). A sealed bid is a choice, not a component, so it is no place."""
        out: dict[str, dict[str, int]] = {}
        for s in range(self.num_players):
            out[f"hand:{s}"] = {str(v): n for v, n in zip(FARES, self.hand[s]) if n}
            out[f"table:{s}"] = {str(v): n for v, n in zip(FARES, self.table[s]) if n}
        return out

    # ------------------------------------------------------------------ serialisation

    _FIELDS = (
        "phase", "month", "season", "callsigns", "cube_owner", "hand", "table", "credit", "anc", "anc_used",
        "flash_token", "cubes", "tokens", "on_board", "hubs", "xb", "draft_turn", "draft_left", "hub_step",
        "dice", "market", "eligible", "decided", "sealed", "offers", "flash_pos", "flash_quiet", "sole",
        "lease_queue", "lease_left",
    )

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"game": "opensky", "players": self.num_players, "options": dict(self.options)}
        for name in self._FIELDS:
            out[name] = _copy(getattr(self, name))
        out["valid"] = [[list(p) for p in paths] for paths in self.valid]
        out["rng"] = rng_to_json(self.rng)
        return out

    @classmethod
    def from_json(cls, game: Any, obj: dict[str, Any]) -> OpenSkyState:
        try:
            state = cls(game, obj["players"], obj["options"], rng_from_json(obj["rng"]))
            for name in cls._FIELDS:
                setattr(state, name, _copy(obj[name]))
            state.valid = [[tuple(p) for p in paths] for paths in obj["valid"]]
        except (KeyError, TypeError) as exc:
            raise ValueError(f"bad OpenSky state JSON: {exc!r}") from exc
        return state

    def clone(self, copy_rng: bool = True) -> OpenSkyState:
        """A deep copy; `copy_rng=False` shares this state's RNG object for the caller to replace at once
        (`determinize` reseeds it; copying the RNG's state is the dearest part of a clone)."""
        new = object.__new__(OpenSkyState)
        new.__dict__.update(self.__dict__)
        new.options = dict(self.options)
        if copy_rng:
            new.rng = clone_rng(self.rng)
        for name in ("callsigns", "cube_owner", "credit", "anc", "anc_used", "flash_token", "cubes", "on_board",
                     "dice", "market", "eligible", "decided", "lease_queue"):
            setattr(new, name, list(getattr(self, name)))
        for name in ("hand", "table", "tokens", "hubs", "xb"):
            setattr(new, name, [list(row) for row in getattr(self, name)])
        new.valid = list(self.valid)  # inner lists are never mutated, only replaced
        new.sealed = [None if b is None else list(b) for b in self.sealed]
        new.offers = [None if b is None else list(b) for b in self.offers]
        return new

    def determinize(self, seat: int, rng: random.Random) -> OpenSkyState:
        """Resample other seats' sealed bids (the only hidden information) and reseed the RNG."""
        new = self.clone(copy_rng=False)
        new.rng = random.Random(rng.getrandbits(64))
        if self.phase == "bid":
            for s in self.eligible:
                if s == seat or not self.decided[s]:
                    continue
                choices: list[list[int] | None] = [None]
                for i, fare in enumerate(FARES):
                    if self.hand[s][i]:
                        choices.extend([fare, it] for it in range(len(self.valid[s])))
                new.sealed[s] = rng.choice(choices)
        return new


_PHASE_RULE = {
    "callsign": "OS-4.2", "draft": "OS-6.5", "hubs": "OS-20.3", "market": "OS-8.4", "bid": "OS-10.1",
    "flash": "OS-12.5", "ancillary": "OS-14.2", "lease": "OS-17.3", "lease_place": "OS-17.7", "over": "OS-19.1",
}


def _copy(value: Any) -> Any:
    if isinstance(value, list):
        return [_copy(v) for v in value]
    return value
