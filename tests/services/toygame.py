"""A tiny sealed-bid card game implementing the engine contract, for service tests only.

Why: the service must be tested on hidden information, simultaneous sealed
decisions, chance and the turn clock deterministically and fast, whatever the
state of the real engines. It is registered only in the test registry (never
in `engine`). Rules (ids TOY-n are cited by the tests):
  TOY-1 each seat is dealt `rounds` secret cards "card-NNNNNN" (unique numbers).
  TOY-2 every round, all seats bid one card from their hand at once (sealed);
        a seat that already bid this round, or a finished game, has nothing to do.
  TOY-3 a bid must be a card of the bidder's hand.
  TOY-4 when all have bid, bids are revealed; the highest card scores 1 plus a die (1-6).
  TOY-5 the default decision (turn clock) is the lowest card in hand.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from engine.core import (
    Action,
    ActionCodec,
    Event,
    Game,
    IllegalAction,
    State,
    rng_from_json,
    rng_to_json,
)


@dataclass(frozen=True, slots=True)
class Bid(Action):
    TYPE = "bid"
    card: str


def _value(card: str) -> int:
    return int(card.split("-")[1])


class ToyState(State):
    def __init__(self, game: Game, players: int, rounds: int, rng: random.Random):
        self.game = game
        self.num_players = players
        self.rounds = rounds
        self.rng = rng
        self.round = 0
        self.hands: list[list[str]] = [[] for _ in range(players)]
        self.bids: list[str | None] = [None] * players
        self.score: list[int] = [0] * players
        self.last_reveal: dict[str, str] | None = None

    def deal(self) -> None:
        numbers = self.rng.sample(range(100_000, 1_000_000), self.num_players * self.rounds)
        for seat in range(self.num_players):
            cards = numbers[seat * self.rounds : (seat + 1) * self.rounds]
            self.hands[seat] = sorted(f"card-{n}" for n in cards)

    def to_act(self) -> list[int]:
        if self.is_over():
            return []
        return [s for s in range(self.num_players) if self.bids[s] is None]

    def legal_actions(self, seat: int) -> list[Action]:
        if seat not in self.to_act():
            return []
        return [Bid(c) for c in self.hands[seat]]

    def apply(self, seat: int, action: Action) -> list[Event]:
        self.check_seat(seat)
        if seat not in self.to_act():
            raise IllegalAction(f"seat {seat} has nothing to decide now", "TOY-2")
        if not isinstance(action, Bid) or action.card not in self.hands[seat]:
            raise IllegalAction(f"{getattr(action, 'card', action)!r} is not in seat {seat}'s hand", "TOY-3")
        self.hands[seat].remove(action.card)
        self.bids[seat] = action.card
        events = [Event("bid_placed", {"seat": seat}), Event("you_bid", {"card": action.card}, (seat,))]
        if all(b is not None for b in self.bids):
            bids = {str(s): b for s, b in enumerate(self.bids) if b is not None}
            winner = max(range(self.num_players), key=lambda s: _value(self.bids[s] or "card-0"))
            die = self.rng.randint(1, 6)
            self.score[winner] += 1 + die
            self.last_reveal = bids
            self.bids = [None] * self.num_players
            self.round += 1
            events += [Event("reveal", {"bids": bids, "winner": winner}), Event("die", {"value": die})]
        return events

    def view(self, seat: int | None) -> dict[str, Any]:
        out: dict[str, Any] = {
            "round": self.round,
            "rounds": self.rounds,
            "scores": list(self.score),
            "hand_sizes": [len(h) for h in self.hands],
            "has_bid": [b is not None for b in self.bids],
            "last_reveal": self.last_reveal,
            "to_act": self.to_act(),
        }
        if seat is not None:
            out["hand"] = list(self.hands[seat])
            out["my_bid"] = self.bids[seat]
        return out

    def is_over(self) -> bool:
        return self.round >= self.rounds

    def scores(self) -> list[int]:
        return list(self.score)

    def winners(self) -> list[int]:
        if not self.is_over():
            return []
        best = max(self.score)
        return [s for s in range(self.num_players) if self.score[s] == best]

    def to_json(self) -> dict[str, Any]:
        return {
            "players": self.num_players,
            "rounds": self.rounds,
            "round": self.round,
            "hands": [list(h) for h in self.hands],
            "bids": list(self.bids),
            "score": list(self.score),
            "last_reveal": self.last_reveal,
            "rng": rng_to_json(self.rng),
        }

    def clone(self) -> ToyState:
        copy = ToyState(self.game, self.num_players, self.rounds, random.Random())
        copy.rng.setstate(self.rng.getstate())
        copy.round = self.round
        copy.hands = [list(h) for h in self.hands]
        copy.bids = list(self.bids)
        copy.score = list(self.score)
        copy.last_reveal = dict(self.last_reveal) if self.last_reveal else None
        return copy

    def determinize(self, seat: int, rng: random.Random) -> State:
        copy = self.clone()
        copy.rng = random.Random(rng.getrandbits(64))
        return copy

    def default_action(self, seat: int) -> Action:
        """TOY-5: the lowest card."""
        if seat not in self.to_act():
            raise IllegalAction(f"seat {seat} has nothing to decide", "TOY-2")
        return Bid(min(self.hands[seat], key=_value))


class ToyGame(Game):
    name = "toybids"
    title = "Toy sealed bids"
    min_players = 2
    max_players = 3
    options = {"rounds": {"default": 3, "choices": [2, 3, 4], "description": "Cards per hand (= rounds)."}}
    max_game_length = 20
    codec = ActionCodec([Bid])

    def new(self, players: int, seed: int, options: dict[str, Any] | None = None) -> State:
        players = self.check_players(players)
        opts = self.resolve_options(options)
        state = ToyState(self, players, opts["rounds"], random.Random(seed))
        state.deal()
        return state

    def from_json(self, obj: dict[str, Any]) -> State:
        state = ToyState(self, obj["players"], obj["rounds"], rng_from_json(obj["rng"]))
        state.round = obj["round"]
        state.hands = [list(h) for h in obj["hands"]]
        state.bids = list(obj["bids"])
        state.score = list(obj["score"])
        state.last_reveal = obj["last_reveal"]
        return state


GAME = ToyGame()
