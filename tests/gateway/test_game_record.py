"""One shape for a game, mapped once (docs/decisions/accounts.md, "One shape for a game, generated outward"): every
field of the protobuf `GameView` / `GameSummary` reaches the client's record, and every field of the record reaches the
REST model through services/gateway/models/game_record.py or is listed there as deliberately left out. Adding a field in
one place and not the next fails here. No service needed."""

from __future__ import annotations

import dataclasses

from services.gamestate.client import GameState, Summary
from services.gamestate.pb import pb2
from services.gamestate.pb_records import python_name
from services.gateway.models.game_record import (
    GAME_DERIVED,
    GAME_INTERNAL,
    SUMMARY_DERIVED,
    SUMMARY_INTERNAL,
    game_out,
    summary_out,
)
from services.gateway.models.games import GameOut, GameSummaryOut


def unmapped(proto: type, record: type, model: type, derived: dict, internal: dict) -> list[str]:
    """What is mapped nowhere along protobuf -> record -> REST model (empty when every field has its place)."""
    record_fields = {f.name for f in dataclasses.fields(record)}
    problems = [f"protobuf {proto.DESCRIPTOR.name}.{f.name} has no field in {record.__name__}"
                for f in proto.DESCRIPTOR.fields if python_name(f) not in record_fields]
    model_fields = set(model.model_fields)
    problems += [f"{record.__name__}.{name} reaches no {model.__name__} field and is not listed as internal"
                 for name in sorted(record_fields - model_fields - internal.keys())]
    problems += [f"{model.__name__}.{name} has no source: not a {record.__name__} field, not derived"
                 for name in sorted(model_fields - record_fields - derived.keys())]
    problems += [f"{name} is both shown and listed as internal" for name in sorted(model_fields & internal.keys())]
    return problems


def test_every_field_of_a_game_reaches_rest_or_is_listed_as_internal() -> None:
    assert unmapped(pb2.GameView, GameState, GameOut, GAME_DERIVED, GAME_INTERNAL) == []
    assert unmapped(pb2.GameSummary, Summary, GameSummaryOut, SUMMARY_DERIVED, SUMMARY_INTERNAL) == []


def test_a_field_added_in_one_place_only_is_found() -> None:
    @dataclasses.dataclass(frozen=True)
    class Grown(GameState):
        clock_paused: bool = False

    assert unmapped(pb2.GameView, Grown, GameOut, GAME_DERIVED, GAME_INTERNAL) == [
        "Grown.clock_paused reaches no GameOut field and is not listed as internal"]
    class GrownOut(GameOut):
        clock_paused: bool = False

    assert unmapped(pb2.GameView, GameState, GrownOut, GAME_DERIVED, GAME_INTERNAL) == [
        "GrownOut.clock_paused has no source: not a GameState field, not derived"]
    assert "protobuf GameView.view_json has no field in Summary" in unmapped(
        pb2.GameView, Summary, GameOut, GAME_DERIVED, GAME_INTERNAL)


def _game(**changes) -> GameState:
    base = GameState(
        game_id="g1", game="opensky", version=7, status="active", to_act=[1], seat=0, view={"phase": "x"},
        scores=[3, 4, 5], winners=[], players=3, options={"variant": "a"}, bots={2: "greedy"}, turn_seconds=0.0,
        deadline_ms=0, digest="d" * 64, resigned=[], deadlines={1: 99, 0: 98}, time_control=None, reserves={},
        abandoned=[], owner="p_owner", rated=False, seat_players={1: "p_other"},
        seats=[{"seat": 0, "kind": "human", "status": "active", "bot_level": None},
               {"seat": 1, "kind": "human", "status": "active", "bot_level": None},
               {"seat": 2, "kind": "bot", "status": "active", "bot_level": "greedy"}],
    )
    return dataclasses.replace(base, **changes)


def test_the_rest_game_is_the_record_as_a_seat_sees_it() -> None:
    out = game_out(_game()).model_dump()
    assert {k: out[k] for k in ("game_id", "game", "version", "status", "to_act", "seat", "view", "players")} == {
        "game_id": "g1", "game": "opensky", "version": 7, "status": "active", "to_act": [1], "seat": 0,
        "view": {"phase": "x"}, "players": 3}
    assert out["bots"] == {"2": "greedy"} and out["deadlines"] == {"0": 98, "1": 99}
    assert out["turn_seconds"] is None, "no clock: null, not 0"
    assert out["winners"] is None, "no winners while the game runs"
    # the seated player, else the owner of a human seat, never the owner of a bot seat
    assert [s["player_id"] for s in out["seats"]] == ["p_owner", "p_other", None]


def test_an_aborted_game_shows_no_result() -> None:
    out = game_out(_game(status="aborted", winners=[0])).model_dump()
    assert out["scores"] is None and out["winners"] is None


def test_a_summary_is_the_record_with_seats_as_strings() -> None:
    s = Summary("g2", "aeroplanes", 2, "finished", 40, [], {1: "random"}, 10, 20,
                {"kind": "correspondence", "days_per_decision": 3})
    out = summary_out(s).model_dump()
    assert out["bots"] == {"1": "random"} and out["time_control"] == {"kind": "correspondence", "days_per_decision": 3}
    assert (out["created_ms"], out["updated_ms"], out["version"]) == (10, 20, 40)
