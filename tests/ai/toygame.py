"""A tiny sealed-bid card game used only by the bot tests.

It has every kind of information a real game has, in a few lines: hidden
hands dealt from a multiset, simultaneous sealed bids, public chance (the
prize die) and hidden chance (draws). Highest unique bid wins the prize.
Known-correct `determinize` makes it a reference for the honesty test.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any, ClassVar

from engine.core import Action, ActionCodec, Event, Game, IllegalAction, State, rng_from_json, rng_to_json


@dataclass(frozen=True, slots=True)
class Bid(Action):
    TYPE: ClassVar[str] = "bid"
    card: int


DECK = [v for v in range(1, 10) for _ in range(2)]
HAND = 3


class ToyState(State):
    def __init__(self, game: Game, players: int, rng: random.Random):
        self.game = game
        self.num_players = players
        self.rng = rng
        self.deck: list[int] = list(DECK)
        self.hands: list[list[int]] = [[] for _ in range(players)]
        self.bids: list[int | None] = [None] * players
        self.points = [0] * players
        self.prize = 0
        self.rounds = 0

    def _draw(self) -> int:
        return self.deck.pop(self.rng.randrange(len(self.deck)))

    def _deal(self) -> None:
        # Everyone draws, or nobody does, so that hands stay the same size.
        while len(self.deck) >= self.num_players and len(self.hands[0]) < HAND:
            for hand in self.hands:
                hand.append(self._draw())
        for hand in self.hands:
            hand.sort()
        self.prize = self.rng.randint(1, 6)

    def to_act(self) -> list[int]:
        if self.is_over():
            return []
        return [s for s in range(self.num_players) if self.bids[s] is None]

    def legal_actions(self, seat: int) -> list[Action]:
        if self.is_over() or not 0 <= seat < self.num_players or self.bids[seat] is not None:
            return []
        return [Bid(v) for v in sorted(set(self.hands[seat]))]

    def apply(self, seat: int, action: Action) -> list[Event]:
        self.check_seat(seat)
        if action not in self.legal_actions(seat):
            raise IllegalAction("not a legal bid", "TOY-1")
        self.hands[seat].remove(action.card)
        self.bids[seat] = action.card
        if any(b is None for b in self.bids):
            return [Event("bid_sealed", {"seat": seat})]
        bids = [b for b in self.bids if b is not None]
        unique = [b for b in bids if bids.count(b) == 1]
        events = [Event("revealed", {"bids": list(bids)})]
        if unique:
            winner = self.bids.index(max(unique))
            self.points[winner] += self.prize
        self.bids = [None] * self.num_players
        self.rounds += 1
        self._deal()
        return events

    def view(self, seat: int | None) -> dict[str, Any]:
        return {
            "points": list(self.points),
            "prize": self.prize,
            "deck": len(self.deck),
            "hand_sizes": [len(h) for h in self.hands],
            "sealed": [b is not None for b in self.bids],
            "hand": sorted(self.hands[seat]) if seat is not None else None,
            "my_bid": self.bids[seat] if seat is not None else None,
            "rounds": self.rounds,
        }

    def is_over(self) -> bool:
        return all(not h for h in self.hands) and all(b is None for b in self.bids)

    def scores(self) -> list[int]:
        return list(self.points)

    def winners(self) -> list[int]:
        if not self.is_over():
            return []
        best = max(self.points)
        return [s for s, p in enumerate(self.points) if p == best]

    def to_json(self) -> dict[str, Any]:
        return {
            "players": self.num_players,
            "deck": sorted(self.deck),
            "hands": [sorted(h) for h in self.hands],
            "bids": list(self.bids),
            "points": list(self.points),
            "prize": self.prize,
            "rounds": self.rounds,
            "rng": rng_to_json(self.rng),
        }

    def clone(self) -> ToyState:
        copy = ToyState.__new__(ToyState)
        copy.game = self.game
        copy.num_players = self.num_players
        copy.rng = random.Random()
        copy.rng.setstate(self.rng.getstate())
        copy.deck = list(self.deck)
        copy.hands = [list(h) for h in self.hands]
        copy.bids = list(self.bids)
        copy.points = list(self.points)
        copy.prize = self.prize
        copy.rounds = self.rounds
        return copy

    def determinize(self, seat: int, rng: random.Random) -> ToyState:
        copy = self.clone()
        pool = sorted(self.deck)
        for s in range(self.num_players):
            if s != seat:
                pool += self.hands[s]
                if self.bids[s] is not None:
                    pool.append(self.bids[s])
        pool.sort()
        for s in range(self.num_players):
            if s == seat:
                continue
            hand = [pool.pop(rng.randrange(len(pool))) for _ in self.hands[s]]
            copy.hands[s] = sorted(hand)
            if self.bids[s] is not None:
                copy.bids[s] = pool.pop(rng.randrange(len(pool)))
        copy.deck = pool
        copy.rng = random.Random(rng.getrandbits(64))
        return copy


class ToyGame(Game):
    name = "toy"
    title = "Toy sealed bids"
    min_players = 2
    max_players = 4
    max_game_length = 200
    codec = ActionCodec([Bid])

    def new(self, players: int, seed: int, options: dict | None = None) -> ToyState:
        self.check_players(players)
        self.resolve_options(options)
        state = ToyState(self, players, random.Random(seed))
        state._deal()
        return state

    def from_json(self, obj: dict[str, Any]) -> ToyState:
        state = ToyState(self, obj["players"], rng_from_json(obj["rng"]))
        state.deck = list(obj["deck"])
        state.hands = [list(h) for h in obj["hands"]]
        state.bids = list(obj["bids"])
        state.points = list(obj["points"])
        state.prize = obj["prize"]
        state.rounds = obj["rounds"]
        return state


TOY = ToyGame()
