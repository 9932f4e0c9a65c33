"""The game-state service's game record (`GameState`, `Summary`: services/gamestate/client.py) -> the REST shapes
(`GameOut`, `GameSummaryOut`), in one place (docs/decisions/accounts.md, "One shape for a game, generated outward").

A REST field named as the record's is copied through as it is; only the fields whose REST form differs are written
here (`GAME_DERIVED`), and the record's fields REST leaves out say why (`GAME_INTERNAL`). So a new field is one
change to the record and the model, and tests/gateway/test_game_record.py fails while a field of the protobuf
`GameView`, the record or the model is mapped nowhere.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from services.accounts.access import seat_kind, seat_player
from services.common.standings import shown_places, shown_scores, shown_winners
from services.gamestate.client import GameState, Summary
from services.gateway.models.games import GameOut, GameSummaryOut, SeatOut


def _by_seat(values: dict[int, Any]) -> dict[str, Any]:
    """JSON objects have string keys: seat numbers as strings, in seat order."""
    return {str(k): v for k, v in sorted(values.items())}


def _player_of(g: GameState, seat: dict[str, Any]) -> str | None:
    """A seat's player (`access.seat_player`)."""
    return seat_player(seat["kind"], g.seat_players.get(seat["seat"]), g.owner)


def seated_accounts(g: GameState) -> set[str]:
    """The accounts a game's seats name (whose kinds `game_out` is told: a bot account's seat shows as a bot's)."""
    return {p for s in g.seats if (p := _player_of(g, s))}


def _seats(g: GameState, bot_accounts: frozenset[str] = frozenset()) -> list[SeatOut]:
    out = []
    for s in g.seats:
        player = _player_of(g, s)
        out.append(SeatOut(seat=s["seat"], kind=seat_kind(s["kind"], player, bot_accounts), status=s["status"],
                           bot_level=s["bot_level"], player_id=player))
    return out


#: GameOut fields whose REST form is computed from the record (every other one is the record's field as it is)
GAME_DERIVED: dict[str, Callable[[GameState], Any]] = {
    "scores": lambda g: shown_scores(g.status, g.scores),
    "winners": lambda g: shown_winners(g.status, g.winners),
    "places": lambda g: shown_places(g.status, g.places),
    "bots": lambda g: _by_seat(g.bots),
    "turn_seconds": lambda g: g.turn_seconds or None,
    "deadlines": lambda g: _by_seat(g.deadlines),
    "reserves": lambda g: _by_seat(g.reserves),
    "seats": _seats,
}

#: the record's fields the REST game does not show under their own name, and why
GAME_INTERNAL: dict[str, str] = {
    "options": "the options a game was created with: GET /v1/games/{id}/log shows them",
    "deadline_ms": "the earliest of `deadlines`",
    "digest": "the state's hash, for replays and the archive: GET /v1/games/{id}/log has the final one",
    "resigned": "each seat's `status` in `seats`",
    "abandoned": "each seat's `status` in `seats`",
    "owner": "each human seat's `player_id` in `seats`",
    "seat_players": "each seat's `player_id` in `seats`",
    "rated": "the game-state service's flag for rating settlement (the matchmaker's games); not in REST yet",
}

#: GameSummaryOut fields computed from the record (the others are copied)
SUMMARY_DERIVED: dict[str, Callable[[Summary], Any]] = {"bots": lambda s: _by_seat(s.bots)}

#: the summary's fields a line of GET /v1/games leaves out, and why: the gateway's own listings read them (my games'
#: pages, the history's games not yet archived), and GET /v1/games/{id} shows each of them for one game
SUMMARY_INTERNAL: dict[str, str] = {
    "scores": "a game's result: GET /v1/games/{id}, and the listings of a player's games",
    "winners": "a game's result: GET /v1/games/{id}, and the listings of a player's games",
    "deadlines": "the running clocks: GET /v1/games/{id}, and my games' `deadline`",
    "owner": "each human seat's `player_id` in GET /v1/games/{id}",
    "rated": "the game-state service's flag for rating settlement; the history's `rated`",
    "seats": "each seat's kind and status in GET /v1/games/{id}",
    "seat_players": "each seat's `player_id` in GET /v1/games/{id}; the history's `seats`",
}


def _copied(record: object, model: type, derived: dict[str, Callable[[Any], Any]]) -> dict[str, Any]:
    return {name: getattr(record, name) for name in model.model_fields if name not in derived}


def game_out(g: GameState, bot_accounts: frozenset[str] = frozenset()) -> GameOut:
    """GET /v1/games/{id}: the record as a seat or a spectator sees it; `bot_accounts`: which of its
    `seated_accounts` are bot accounts."""
    derived = {name: f(g) for name, f in GAME_DERIVED.items()}
    return GameOut(**_copied(g, GameOut, GAME_DERIVED), **{**derived, "seats": _seats(g, bot_accounts)})


def summary_out(s: Summary) -> GameSummaryOut:
    """One line of GET /v1/games."""
    return GameSummaryOut(**_copied(s, GameSummaryOut, SUMMARY_DERIVED),
                          **{name: f(s) for name, f in SUMMARY_DERIVED.items()})
