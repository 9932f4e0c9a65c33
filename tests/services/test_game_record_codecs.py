"""The game's one record (services/common/game_record.py): its Redis hash and SQL row codecs follow its fields, read
what earlier code wrote (old hashes, rows from before migration 0003), and keep the bot key out of the archive. No
service needed: the hash is a dict, the row an object with the table's columns."""

from __future__ import annotations

import dataclasses
from types import SimpleNamespace

import pytest

from services.archive.models import ArchivedGameRow
from services.archive.record import ArchivedGame, pack_lines, pack_text
from services.common.game_record import INT, GameRecord, Undo, kept, layout
from services.gamestate.records import Meta
from services.gamestate.wire import dumps


def _full() -> GameRecord:
    """A record with every field away from its default."""
    return GameRecord(
        game_id="g1", game="toybids", players=3, options={"rounds": 2, "past_64_bits": 2**70}, seed=2**62,
        bots={2: "greedy"},
        status="finished", version=9, digest="d" * 64, scores=[3, 1, 2], winners=[0], resigned=[1],
        token_hashes={0: "a" * 64, 1: "b" * 64}, created_ms=1000, updated_ms=2000, clock_ms=30_000, owner="p_owner",
        seat_players={0: "p_owner", 1: "p_other"}, rated=True,
        time_control={"kind": "realtime", "seconds_per_decision": 30.0, "reserve_seconds": 60.0},
        reserves={0: 5000, 1: 7000}, abandoned=[1], to_act=[0], deadline_ms=9000, deadlines={0: 9000},
        bot_key="k" * 32, timeouts={1: 2}, undo=Undo(0, 8, 8500, 4000), state_of=7, archived_ms=2500,
        log_lines=['{"v":1}', '{"v":2}'], state_text='{"x":1}', archived=True,
    )


def _kept(where: str) -> set[str]:
    laid = layout(GameRecord)
    return {n for n, _, _ in (laid.hash_fields if where == "hash" else laid.row_fields)}


def test_the_hash_codec_round_trips_every_field_it_keeps() -> None:
    r = _full()
    back = Meta.from_hash("g1", r.to_hash())
    assert back == dataclasses.replace(r, archived_ms=0, log_lines=[], state_text="", archived=False)
    assert not {"game_id", "log_lines", "state_text", "archived_ms"} & _kept("hash"), "the key, and the archive's"


def test_the_hash_is_what_the_creation_wrote_before_the_codec() -> None:
    """The fields the store's hand-written hash had, written the same way; the new ones at their defaults."""
    r = dataclasses.replace(_full(), status="active", undo=None, state_of=None, timeouts={}, abandoned=[],
                            resigned=[])
    before = {
        "game": r.game, "players": str(r.players), "options": dumps(r.options), "seed": str(r.seed),
        "bots": dumps({str(s): lvl for s, lvl in sorted(r.bots.items())}), "resigned": "[]", "status": r.status,
        "version": str(r.version), "digest": r.digest, "to_act": dumps(r.to_act), "scores": dumps(r.scores),
        "winners": dumps(r.winners), "created_ms": str(r.created_ms), "updated_ms": str(r.updated_ms),
        "clock_ms": str(r.clock_ms), "deadline_ms": str(r.deadline_ms), "deadlines": dumps(r.deadlines),
        "owner": r.owner, "bot_key": r.bot_key, "time_control": dumps(r.time_control),
        "reserves": dumps({str(s): ms for s, ms in sorted(r.reserves.items())}), "rated": "1",
        "seat_players": dumps({str(k): v for k, v in sorted(r.seat_players.items())}),
        **{f"tok:{s}": h for s, h in r.token_hashes.items()},
    }
    written = r.to_hash()
    assert {k: written[k] for k in before} == before
    assert {k: v for k, v in written.items() if k not in before} == {
        "abandoned": "[]", "timeouts": "{}", "undo": "", "state_of": ""}


def test_an_old_hash_loads_with_the_later_fields_at_their_defaults() -> None:
    """A hash written before the owner, reserves, abandonment, take-back and seated players existed."""
    old = {"game": "toybids", "players": "2", "options": "{}", "seed": "7", "bots": '{"1":"random"}',
           "status": "active", "version": "3", "digest": "c" * 64, "to_act": "[0]", "scores": "[0,0]",
           "winners": "[]", "created_ms": "10", "updated_ms": "20", "clock_ms": "0", "deadline_ms": "0",
           "time_control": "null", "tok:0": "e" * 64, "seat_players": "", "rated": "true"}
    m = Meta.from_hash("g0", old)
    assert (m.bots, m.token_hashes, m.time_control, m.rated) == ({1: "random"}, {0: "e" * 64}, None, True)
    assert (m.resigned, m.abandoned, m.reserves, m.seat_players, m.deadlines, m.undo, m.state_of, m.owner) == (
        [], [], {}, {}, {}, None, None, "")
    with pytest.raises(KeyError, match="status"):
        Meta.from_hash("g0", {k: v for k, v in old.items() if k != "status"})


def test_the_row_codec_writes_exactly_the_tables_columns() -> None:
    row = _full().to_row()
    assert set(row) == set(ArchivedGameRow.__table__.columns.keys())
    assert "k" * 32 not in repr(row), "the bot key never reaches the archive"
    assert "bot_key" not in _kept("row")
    assert (row["turn_ms"], row["finished_ms"], row["bots"], row["reserves"]) == (30_000, 2000, {"2": "greedy"},
                                                                                   {"0": 5000, "1": 7000})
    assert row["log_z"] == pack_lines(['{"v":1}', '{"v":2}']) and row["state_z"] == pack_text('{"x":1}')


def test_the_row_codec_round_trips_and_reads_rows_from_before_0003() -> None:
    r = _full()
    back = ArchivedGame.from_row(SimpleNamespace(**r.to_row()))
    live_only = {"to_act": [], "deadline_ms": 0, "deadlines": {}, "bot_key": "", "timeouts": {}, "undo": None,
                 "state_of": None}
    assert back == dataclasses.replace(r, **live_only)
    old = SimpleNamespace(**{**r.to_row(), "time_control": None, "reserves": None, "abandoned": None})
    got = ArchivedGame.from_row(old, blobs=False)
    assert (got.time_control, got.reserves, got.abandoned, got.log_lines, got.state_text) == (None, {}, [], [], "")


def test_a_field_declared_once_is_in_both_codecs() -> None:
    """What adding a field is (docs/platform/game-record.md): one field declared with `kept(...)`, and both codecs
    carry it."""

    @dataclasses.dataclass(slots=True, kw_only=True)
    class Grown(GameRecord):
        moves_played: int = dataclasses.field(default=0, metadata=kept(INT))

    g = Grown(**{f.name: getattr(_full(), f.name) for f in dataclasses.fields(GameRecord)}, moves_played=41)
    assert g.to_hash()["moves_played"] == "41"
    assert Grown.from_hash("g1", g.to_hash()).moves_played == 41
    assert Grown.from_hash("g1", _full().to_hash()).moves_played == 0, "a hash from before the field still loads"
    assert g.to_row()["moves_played"] == 41
    assert Grown.from_row(SimpleNamespace(**g.to_row())).moves_played == 41
