"""Archival of finished games: Redis -> SQL exactly once, then every read falls back to the archive."""

from __future__ import annotations

import random
import time

import grpc

from services.archive.db import make_engine
from services.archive.repository import ArchiveRepository
from services.gamestate.archiver import Archiver
from services.gamestate.keys import Keys
from services.gamestate.pb import pb2
from services.gamestate.service import GameStateService
from tests.services.archive_helpers import archived, finished_games, leftover_keys, replayed_digest
from tests.services.helpers import expect_error, play_random


def _archiver(service: GameStateService, url: str, **kw) -> tuple[Archiver, ArchiveRepository]:
    repo = ArchiveRepository(make_engine(url))
    store = service.store
    return Archiver(store.redis, store.keys, repo, service.registry.get, after_s=0, **kw), repo


def _views(client, games):
    out = {}
    for g in games:
        raw_log = client.stub.GetLog(pb2.GetLogRequest(game_id=g.game_id)).SerializeToString()
        seat = client.get_game(g.game_id, g.token(0))
        spectator = client.get_game(g.game_id)
        out[g.game_id] = (raw_log, (seat.version, seat.digest, seat.view, seat.scores, seat.winners, seat.status),
                          (spectator.version, spectator.digest, spectator.view, spectator.status))
    return out


def test_finished_games_leave_redis_and_every_read_falls_back_to_sql(
    make_instance, make_client, rdb, prefix, registry, archive_url
):
    inst = make_instance(archive_url=archive_url, archive_interval_s=0)  # reads fall back; archiving by hand
    client = make_client(inst)
    keyed = client.create_game("toybids", 2, seed=4)  # its first move has an idempotency key to clean up
    seat = client.get_game(keyed.game_id).to_act[0]
    move = client.legal_actions(keyed.game_id, keyed.token(seat)).actions[0]
    client.submit(keyed.game_id, keyed.token(seat), move, 0, idempotency_key="k1")
    play_random([client], keyed, 2, random.Random(3))
    assert rdb.keys(Keys(prefix).idem(keyed.game_id, 0, "*").replace(":0:*", ":*"))
    games = [keyed, *finished_games(client, 3, seed=11)]
    active = client.create_game("toybids", 2, seed=5)
    before = _views(client, games)
    archiver, repo = _archiver(inst.running.service, archive_url, batch=3)
    try:
        moved = [inst.run(archiver.archive_once()) for _ in range(3)]
    finally:
        inst.run(repo.close())
    assert moved == [3, 1, 0]  # batches of 3; the active game stays
    ids = [g.game_id for g in games]
    assert leftover_keys(rdb, prefix, ids) == []
    assert client.get_game(active.game_id).status == "active"
    fresh = make_client(make_instance(archive_url=archive_url, archive_interval_s=0))  # nothing cached
    assert _views(fresh, games) == before  # same views, and GetLog's exact bytes
    listed = {s.game_id for s in fresh.list_games(status="finished", game="toybids", limit=100)}
    assert set(ids) <= listed
    g = games[0]
    expect_error(grpc.StatusCode.FAILED_PRECONDITION, fresh.resign, g.game_id, g.token(0))
    updates = list(fresh.watch(g.game_id))
    assert [(u.kind, u.status, u.version) for u in updates] == [("archived", "finished", before[g.game_id][1][0])]
    rows = archived(archive_url, ids)
    for gid in ids:
        assert replayed_digest(registry.get("toybids"), rows[gid]) == rows[gid].digest == before[gid][2][1]


def test_a_crash_between_commit_and_delete_neither_loses_nor_duplicates(make_instance, make_client, rdb, prefix,
                                                                          archive_pg_url):
    inst = make_instance(archive_url=archive_pg_url, archive_interval_s=0)
    client = make_client(inst)
    games = finished_games(client, 2, seed=12)
    archiver, repo = _archiver(inst.running.service, archive_pg_url)
    try:
        ids = [g.game_id for g in games]
        assert inst.run(archiver._claim(ids)) == ids
        records = inst.run(archiver._read(ids))
        inst.run(repo.put_many(records))  # committed ... and the process "dies" before deleting anything
        assert leftover_keys(rdb, prefix, ids)  # still in Redis
        assert inst.run(archiver.archive_once()) == 0  # the dead archiver's leases hold until they expire
        for gid in ids:
            rdb.delete(Keys(prefix).archiving(gid))
        assert inst.run(archiver.archive_once()) == 2
        assert inst.run(repo.digests(ids)) == {r.game_id: r.digest for r in records}
    finally:
        inst.run(repo.close())
    assert leftover_keys(rdb, prefix, ids) == []


def test_a_game_is_never_dropped_unless_sql_holds_its_digest(make_instance, make_client, rdb, prefix, archive_pg_url):
    inst = make_instance(archive_url=archive_pg_url, archive_interval_s=0)
    client = make_client(inst)
    (game,) = finished_games(client, 1, seed=13)
    archiver, repo = _archiver(inst.running.service, archive_pg_url)
    try:
        assert inst.run(archiver.drop(game.game_id, "0" * 64)) == -1
    finally:
        inst.run(repo.close())
    assert leftover_keys(rdb, prefix, [game.game_id])
    assert client.get_game(game.game_id).status == "finished"



def test_the_players_a_creator_seats_find_the_game_in_their_histories(make_instance, make_client, settings,
                                                                      archive_url):
    """GameAdmin creations name who sits where (the matchmaker, challenges): the archive indexes the game under
    each of them, so a matched game is in both players' histories."""
    inst = make_instance(archive_url=archive_url, archive_interval_s=0)
    client = make_client(inst)
    admin = client.admin(settings.service_secret)
    game = admin.create_game("toybids", 2, seed=6, seat_players={0: "ann", 1: "bob"}, rated=True)
    expect_error(grpc.StatusCode.INVALID_ARGUMENT, admin.create_game, "toybids", 2, seat_players={5: "ann"})
    expect_error(grpc.StatusCode.INVALID_ARGUMENT, admin.create_game, "toybids", 2, bots={1: "random"},
                 seat_players={1: "ann"})
    expect_error(grpc.StatusCode.INVALID_ARGUMENT, admin.create_game, "toybids", 2, seat_players={0: "a b"})
    play_random([client], game, 2, random.Random(6))
    archiver, repo = _archiver(inst.running.service, archive_url)
    try:
        assert inst.run(archiver.archive_once()) >= 1
        for player in ("ann", "bob"):
            page = inst.run(repo.history(player))
            assert [g.game_id for g in page.games] == [game.game_id], player
    finally:
        inst.run(repo.close())


REALTIME = {"kind": "realtime", "seconds_per_decision": 0.05, "reserve_seconds": 0.15}
CORRESPONDENCE = {"kind": "correspondence", "days_per_decision": 30}  # 2.6e9 ms per decision: past INTEGER


def _seat_0_only(inst, client, game) -> None:
    """Seat 0 bids at once, seat 1 never: its clock (reserve included) runs out until the seat is abandoned, then
    the zombie (here the default decision) plays it out."""
    for _ in range(100):
        view = client.get_game(game.game_id)
        if view.status != "active":
            return
        if 0 in view.to_act:
            hand = client.get_game(game.game_id, game.token(0)).view["hand"]
            client.submit(game.game_id, game.token(0), {"type": "bid", "card": hand[0]}, view.version)
            continue
        assert view.deadlines, view
        while time.time() * 1000 <= min(view.deadlines.values()):
            time.sleep(0.01)
        inst.run(inst.running.service.clock.sweep_once())
    raise AssertionError("the game did not end")


def test_archived_games_keep_their_time_control_reserves_and_abandoned_seats(
    make_instance, make_client, rdb, prefix, archive_url
):
    """A realtime game (a reserve spent, a seat abandoned on timeouts) and a 30-day correspondence game read the
    same from the archive as from Redis: GetGame (every field of the view), and their ListGames lines."""
    inst = make_instance(archive_url=archive_url, archive_interval_s=0, sweeper=False, abandon_after_timeouts=1)
    client = make_client(inst)
    realtime = client.create_game("toybids", 2, seed=21, options={"rounds": 2}, time_control=REALTIME)
    _seat_0_only(inst, client, realtime)
    correspondence = client.create_game("toybids", 2, seed=22, time_control=CORRESPONDENCE)
    play_random([client], correspondence, 2, random.Random(22))
    games = [realtime, correspondence]
    ids = [g.game_id for g in games]

    def views(c):
        return {g.game_id: (c.get_game(g.game_id), c.get_game(g.game_id, g.token(0))) for g in games}

    def lines(c):
        return {s.game_id: s for s in c.list_games(status="finished", game="toybids", limit=500) if s.game_id in ids}

    before, listed = views(client), lines(client)
    live = before[realtime.game_id][0]
    assert live.time_control == REALTIME and live.abandoned == [1] and live.reserves[1] == 0  # spent, then abandoned
    assert live.seats[1] == {"seat": 1, "kind": "human", "status": "abandoned", "bot_level": None}
    assert before[correspondence.game_id][0].time_control == CORRESPONDENCE
    assert before[correspondence.game_id][0].turn_seconds == 30 * 86_400
    assert {gid: s.time_control for gid, s in listed.items()} == {realtime.game_id: REALTIME,
                                                                  correspondence.game_id: CORRESPONDENCE}
    archiver, repo = _archiver(inst.running.service, archive_url)
    try:
        assert inst.run(archiver.archive_once()) == 2
    finally:
        inst.run(repo.close())
    assert leftover_keys(rdb, prefix, ids) == []
    fresh = make_client(make_instance(archive_url=archive_url, archive_interval_s=0))  # nothing cached
    assert views(fresh) == before
    assert lines(fresh) == listed
    rows = archived(archive_url, ids)
    assert rows[realtime.game_id].reserves == live.reserves and rows[realtime.game_id].abandoned == [1]
