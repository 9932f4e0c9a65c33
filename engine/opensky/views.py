"""The per-seat JSON view of an OpenSky state (everything public plus the seat's own sealed bid)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from engine.opensky.constants import CALLSIGNS, FARES, MONTHS

if TYPE_CHECKING:
    from engine.opensky.state import OpenSkyState


def build_view(state: OpenSkyState, seat: int | None) -> dict[str, Any]:
    """Phase, month, board pieces, every player's public holdings; a sealed bid only for its owner.

    Hands are public (OS-1.5: a sealed card still counts in its owner's hand until the reveal).
    The static board is not repeated here: see `GAME.describe()["boards"][view["map"]]`.
    """
    board = state.board
    codes = board.codes
    leasing = state.phase in ("lease", "lease_place")
    # OS-17.1: End of Month moves the month marker first, so during leasing the view shows the next month
    # (its roller rolls once leasing is over); the month that ended still sets the leasing order (OS-17.8).
    month = state.month + 1 if leasing else state.month
    players = []
    for s in range(state.num_players):
        players.append(
            {
                "seat": s,
                "hand": [v for v, n in zip(FARES, state.hand[s]) for _ in range(n)],
                "table": state._table_cards(s),
                "credit": state.credit[s],
                "ancillary_unused": state.anc[s],
                "ancillary_used": state.anc_used[s],
                "flash_deal": state.flash_token[s],
                "subsidies": state.cubes[s],
                "aircraft_supply": state.S - state.on_board[s],
                "aircraft": {board.route_codes[r]: n for r, n in enumerate(state.tokens[s]) if n},
                "hubs": [codes[a] for a in state.hubs[s]],
                "cross_border_routes": [board.route_codes[r] for r in state.xb[s]],
                "score": state.score_breakdown(s),
            }
        )
    out: dict[str, Any] = {
        "game": "opensky",
        "map": board.name,
        "seat": seat,
        "phase": state.phase,
        "to_act": state.to_act(),
        "month": month,
        "month_name": MONTHS[month - 1],
        "season": state.season,
        "roller": (month - 1) % state.num_players,
        "aircraft_per_player": state.S,
        "callsigns": {CALLSIGNS[i]: codes[a] for i, a in enumerate(state.callsigns)},
        "subsidy_cubes": {codes[a]: state.cube_owner[i] for i, a in enumerate(state.callsigns)},
        "dice": [CALLSIGNS[d] for d in state.dice],
        "market": state._path_codes(state.market),
        "players": players,
    }
    if state.phase == "draft":
        turn_seat = state.to_act()[0]
        out["draft"] = {"turn": state.draft_turn, "seat": turn_seat, "tokens_left_in_turn": state.draft_left}
    if state.phase == "hubs":
        out["hub_turn"] = _hub_turn(state)
    if state.phase in ("bid", "flash", "ancillary"):
        pricing: dict[str, Any] = {
            "eligible": list(state.eligible),
            "valid_itineraries": {str(s): [state._path_codes(p) for p in state.valid[s]] for s in state.eligible},
            "decided": [s for s in state.eligible if state.decided[s]],
            "offers": [state._offer_json(s) for s in range(state.num_players) if state.offers[s] is not None],
        }
        if state.phase == "bid" and seat is not None and state.decided[seat] and seat in state.eligible:
            own = state.sealed[seat]
            pricing["my_bid"] = (
                None
                if own is None
                else {"fare": own[0], "itinerary": state._path_codes(state.valid[seat][own[1]])}
            )
        if state.phase != "bid":
            pricing["provisional_winners"] = state._provisional()
        out["pricing"] = pricing
    if leasing:
        out["lease"] = _lease_view(state)
    return out


def _hub_turn(state: OpenSkyState) -> dict[str, Any]:
    """OS-20.3 / OS-20.7: whose hub decision it is and which of the seat's two hubs it is about (1 or 2: every seat
    decides its first, then its second); at the season reset, the airport that hub stands on (keep it, or move it
    from there), before it none."""
    seat = state.to_act()[0]
    index = state.hub_step // state.num_players
    mine = state.hubs[seat]
    at = state.board.codes[mine[index]] if state.season == 2 and index < len(mine) else None
    return {"seat": seat, "hub": index + 1, "airport": at}


def _lease_view(state: OpenSkyState) -> dict[str, Any]:
    """OS-17.8: the month whose order applies and the seats still to lease in it. A seat that cannot lease
    (no aircraft off the board or less than 200 to pay with) is skipped, so it is not listed; the seat
    leasing now stays listed while it places its aircraft."""
    queue = state.lease_queue
    return {
        "month": state.month,
        "month_name": MONTHS[state.month - 1],
        "queue": [s for i, s in enumerate(queue) if i == 0 or state._can_lease(s)],
        "aircraft_to_place": state.lease_left,
    }
