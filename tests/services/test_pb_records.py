"""The protobuf messages are the declaration of a game on the wire: the service's replies copy every message field
named as a record field (services/gamestate/replies.py), and the client's records are the messages' fields, decoded
(services/gamestate/pb_records.py). No service needed: messages are built and read in memory."""

from __future__ import annotations

import dataclasses

from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

from services.common.game_record import TEXT, GameRecord, kept
from services.gamestate.client import _DECODERS, _SEAT_PLAYERS, GameState, Summary
from services.gamestate.pb import pb2
from services.gamestate.pb_records import pb_record, python_name
from services.gamestate.replies import SUMMARY_DERIVED, VIEW_DERIVED, summary_of


def _names(record: type) -> list[str]:
    return [f.name for f in dataclasses.fields(record)]


def test_the_clients_records_are_the_messages_fields() -> None:
    assert _names(GameState) == [python_name(f) for f in pb2.GameView.DESCRIPTOR.fields] + ["seat_players"]
    assert _names(Summary) == [python_name(f) for f in pb2.GameSummary.DESCRIPTOR.fields] + ["seat_players"]


def test_every_reply_field_is_the_records_or_computed_for_the_reply() -> None:
    record = set(_names(GameRecord))
    for message, derived in ((pb2.GameView, VIEW_DERIVED), (pb2.GameSummary, SUMMARY_DERIVED)):
        names = {f.name for f in message.DESCRIPTOR.fields}
        assert set(derived) <= names, f"{message.DESCRIPTOR.name}: computes fields it does not have"
        assert [f.name for f in message.DESCRIPTOR.fields
                if f.name not in derived and python_name(f) not in record] == [], message.DESCRIPTOR.name


def test_a_view_message_decodes_by_its_fields_kinds() -> None:
    msg = pb2.GameView(
        game_id="g1", game="toybids", version=4, status="active", to_act=[1], view_json='{"bid":3}',
        options_json='{"rounds":2}', bots={1: "greedy"}, turn_seconds=30.0, deadlines_ms={1: 99}, reserves_ms={1: 5},
        time_control=pb2.TimeControl(kind="correspondence", days_per_decision=3), owner="p1",
        seats=[pb2.SeatState(seat=0, kind="human", status="active", player_id="p2"),
               pb2.SeatState(seat=1, kind="bot", status="active", bot_level="greedy")],
    )
    g = GameState.from_pb(msg)
    assert (g.seat, g.view, g.options, g.bots, g.deadlines, g.reserves) == (
        None, {"bid": 3}, {"rounds": 2}, {1: "greedy"}, {1: 99}, {1: 5}), "unset optional seat: a spectator"
    assert g.time_control == {"kind": "correspondence", "days_per_decision": 3}
    assert g.seats == [{"seat": 0, "kind": "human", "status": "active", "bot_level": None},
                       {"seat": 1, "kind": "bot", "status": "active", "bot_level": "greedy"}]
    assert g.seat_players == {0: "p2"}
    msg.seat = 0
    assert GameState.from_pb(msg).seat == 0


def test_a_record_reaches_the_clients_summary_through_the_message() -> None:
    m = GameRecord(
        game_id="g2", game="toybids", players=2, options={}, seed=1, bots={1: "random"}, status="finished",
        version=9, digest="d" * 64, scores=[3, 1], winners=[0], token_hashes={}, created_ms=10, updated_ms=20,
        clock_ms=0, owner="p1", seat_players={0: "p1"}, rated=True, to_act=[1], deadlines={1: 5},
        time_control={"kind": "realtime", "seconds_per_decision": 5.0, "reserve_seconds": 0.0},
    )
    s = Summary.from_pb(summary_of(m))
    copied = {python_name(f) for f in pb2.GameSummary.DESCRIPTOR.fields if f.name not in SUMMARY_DERIVED}
    assert {n: getattr(s, n) for n in copied} == {n: getattr(m, n) for n in copied}
    assert (s.to_act, s.deadlines, s.winners, s.seat_players) == ([], {}, [0], {0: "p1"}), "ended: no clock"
    assert s.time_control == m.time_control


def _grown(message: type, name: str, number: int) -> type:
    """`message` with one string field more, as if the .proto had gained it: a message `Grown<name>` of a file of
    its own, beside the real messages (its fields' message types are theirs), which stay as checked in."""
    pool = descriptor_pool.Default()
    fd = descriptor_pb2.FileDescriptorProto(name=f"tests/grown_{message.DESCRIPTOR.name}.proto",
                                            package="skyboard.v1.tests",
                                            dependency=[message.DESCRIPTOR.file.name], syntax="proto3")
    grown = fd.message_type.add()
    message.DESCRIPTOR.CopyToProto(grown)
    grown.name = f"Grown{message.DESCRIPTOR.name}"
    grown.field.add(name=name, number=number, type=descriptor_pb2.FieldDescriptorProto.TYPE_STRING,
                    label=descriptor_pb2.FieldDescriptorProto.LABEL_OPTIONAL)
    try:
        pool.FindFileByName(fd.name)
    except KeyError:
        pool.Add(fd)
    return message_factory.GetMessageClass(pool.FindMessageTypeByName(f"skyboard.v1.tests.{grown.name}"))


def test_a_field_added_to_the_proto_and_the_record_needs_no_other_edit_on_the_way() -> None:
    """docs/platform/game-record.md: a field in the .proto and in the record (one line each) is written to Redis and the
    archive, copied into the reply and decoded by the client, with no edit to the store, the archiver, the server or
    the client."""

    @dataclasses.dataclass(slots=True, kw_only=True)
    class GrownRecord(GameRecord):
        rematch_of: str = dataclasses.field(default="", metadata=kept(TEXT))

    message = _grown(pb2.GameSummary, "rematch_of", 99)
    client_summary = pb_record("Summary", message.DESCRIPTOR, module=__name__, doc="", decoders=_DECODERS,
                               derived={"seat_players": _SEAT_PLAYERS})
    m = GrownRecord(game_id="g3", game="toybids", players=2, options={}, seed=1, bots={}, status="active", version=1,
                    digest="d" * 64, scores=[0, 0], winners=[], token_hashes={}, created_ms=1, updated_ms=2,
                    clock_ms=0, rematch_of="g1")
    stored = GrownRecord.from_hash("g3", m.to_hash())  # the live record, as the store reads it back
    assert stored.rematch_of == "g1" and m.to_row()["rematch_of"] == "g1"
    assert client_summary.from_pb(summary_of(stored, message)).rematch_of == "g1"
