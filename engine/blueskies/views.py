"""The per-seat JSON view of a Blue Skies state: the board and every public count, plus the seat's own hand
and what it knows of the deck; and where every card is (`holdings`), the truth views are checked against."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from engine.blueskies.constants import AIRPORTS, BUY, CODES, FULL, HELP, LOCAL, PHASES, SETUP_BUY, SPACES, STEPS
from engine.blueskies.knowledge import deck_bounds
from engine.core import JSON

if TYPE_CHECKING:
    from engine.blueskies.state import BlueSkiesState


def json_copy(obj: Any) -> Any:
    """A fresh copy of a JSON value (cheaper than copy.deepcopy, which memoises)."""
    if isinstance(obj, dict):
        return {k: json_copy(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [json_copy(v) for v in obj]
    return obj


def final_view(final: dict[str, JSON] | None) -> dict[str, JSON] | None:
    """The final scoring's breakdown (BS-9). Without the engine's winners, which a game finished before they left
    the breakdown may still hold: who won is the platform's result, which knows who resigned."""
    return None if final is None else {k: json_copy(v) for k, v in final.items() if k != "winners"}


def build_view(state: BlueSkiesState, seat: int | None) -> dict[str, JSON]:
    """Airports with their gates' owners and shares; scores, income, supplies and hand sizes of all; the deck
    and discard pile as counts; the seat's hand and deck knowledge (None for a spectator)."""
    n = state.num_players
    spaces = SPACES[n]
    airports = []
    for a in AIRPORTS:
        owners = state.gates[a]
        g = len(owners)
        q, r = divmod(state.pax[a], g) if g else (0, 0)
        airports.append(
            {
                "code": CODES[a],
                "passengers": state.pax[a],
                "gates": [
                    {
                        "space": spaces[a][i],
                        "owner": "local" if o == LOCAL else o,
                        "passengers": q + 1 if i < r else q,
                    }
                    for i, o in enumerate(owners)
                ],
                "usable_spaces": len(spaces[a]),
                "next_cost": None if state.nextcost[a] == FULL else state.nextcost[a],
            }
        )
    discard: dict[str, int] = {}
    for c in state.discard:
        discard[CODES[c]] = discard.get(CODES[c], 0) + 1
    out: dict[str, JSON] = {
        "game": "blueskies",
        "players": n,
        "seat": seat,
        "phase": PHASES[state.phase],
        "step": STEPS[state.phase],
        "round": state.round,
        "first_player": state.first,
        "to_act": state.to_act(),
        "scores": list(state.points),
        "income": list(state.income),
        "supply": list(state.supply),
        "special_used": list(state.special_used),
        "hand_counts": [len(h) for h in state.hands],
        "hand": [CODES[c] for c in state.hands[seat]] if seat is not None else None,
        "deck_count": len(state.deck),
        "discard": discard,
        "bag": {"red": state.red, "green": state.green},
        "airports": airports,
        "budget": state.budget if state.phase in (BUY, SETUP_BUY) else None,
        "setup_gates_added": state.added if state.phase == SETUP_BUY else None,
        "government": {
            "used": state.help_used,
            "entitlement": list(state.help_entitlement),
            "chosen": [CODES[a] for a in state.help_chosen] if state.phase == HELP else [],
        },
        "final": final_view(state.final),
        "deck_known": None if seat is None else deck_known_view(state, seat),
    }
    return out


def deck_known_view(state: BlueSkiesState, seat: int) -> dict[str, JSON]:
    """`deck_bounds` as codes: `at_least` the cards surely in the deck, `at_most` every card it can hold
    (codes absent cannot be in it), or None when it can hold any card the seat has not seen."""
    low, high = deck_bounds(state, seat)
    return {
        "at_least": {CODES[a]: k for a, k in enumerate(low) if k},
        "at_most": None if high is None else {CODES[a]: k for a, k in enumerate(high) if k},
    }


def holdings(state: BlueSkiesState) -> dict[str, dict[str, int]]:
    """Where every demand card is: the deck, the discard pile and each hand (`hand:<seat>`)."""
    out = {"deck": _code_counts(state.deck), "discard": _code_counts(state.discard)}
    for s, hand in enumerate(state.hands):
        out[f"hand:{s}"] = _code_counts(hand)
    return out


def _code_counts(cards: list[int]) -> dict[str, int]:
    out: dict[str, int] = {}
    for c in cards:
        out[CODES[c]] = out.get(CODES[c], 0) + 1
    return out
