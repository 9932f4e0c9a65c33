"""skyboard.v1.TournamentService over a real gRPC channel to the gateway's own listener (real Redis, PostgreSQL and
game-state service): the REST operations with the same answers, the same refusals (REST's code as the status's
details `reason`), the same quotas and rate limits, and WatchTournament relaying a director's pairings and end."""

from __future__ import annotations

import json
import threading
import time
import uuid
from typing import Any

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from proto.skyboard.v1 import game_service_pb2 as game_pb2
from proto.skyboard.v1 import tournament_service_pb2 as pb2
from proto.skyboard.v1 import tournament_service_pb2_grpc as pb2_grpc
from tests.gateway.conftest import free_port
from tests.gateway.test_accounts import new_account
from tests.gateway.test_tournaments import DirectorThread, _new_event, _store_call
from tests.rate_windows import fresh_window

CLOCK = game_pb2.TimeControl(kind="realtime", seconds_per_decision=0.05, reserve_seconds=0)


def _stub(gw) -> tuple[grpc.Channel, pb2_grpc.TournamentServiceStub]:
    channel = grpc.insecure_channel(f"127.0.0.1:{gw.settings.grpc_port}")
    return channel, pb2_grpc.TournamentServiceStub(channel)


def _key(api_key: str) -> tuple[tuple[str, str]]:
    return (("authorization", f"Bearer {api_key}"),)


def _request(**extra: Any) -> pb2.CreateTournamentRequest:
    fields: dict[str, Any] = dict(name="gRPC Swiss", game="toybids", players=2, rounds=2, byes="score",
                                  options_json=json.dumps({"rounds": 2}), time_control=CLOCK,
                                  starts_at=int(time.time() * 1000))
    fields.update(extra)
    return pb2.CreateTournamentRequest(**fields)


def _refused(call: Any, *args: Any, **kwargs: Any) -> tuple[grpc.StatusCode, str]:
    """(status code, details reason) of a call that must fail."""
    with pytest.raises(grpc.RpcError) as caught:
        call(*args, timeout=30, **kwargs)
    details = json.loads(caught.value.details())
    assert set(details) >= {"reason", "message", "rule"} and details["message"], details
    return caught.value.code(), details["reason"]


def test_grpc_operations_answer_and_refuse_as_rest(make_gateway) -> None:
    gw = make_gateway(outcomes=False, tournaments_per_day=3, grpc_port=free_port())
    channel, stub = _stub(gw)
    try:
        with gw.client() as c:
            org, key = new_account(c, "organiser")
            _bot, bot_key = new_account(c, "robo", "bot")
            others = [new_account(c, f"other-{i}") for i in range(2)]
            health = health_pb2_grpc.HealthStub(channel).Check(
                health_pb2.HealthCheckRequest(service="skyboard.v1.TournamentService"), timeout=30)
            assert health.status == health_pb2.HealthCheckResponse.SERVING

            # the caller: none, an unknown key, a malformed header
            unauth = (grpc.StatusCode.UNAUTHENTICATED, "unauthenticated")
            assert _refused(stub.CreateTournament, _request()) == unauth
            assert _refused(stub.CreateTournament, _request(), metadata=_key("sbk_" + "0" * 40)) == unauth
            assert _refused(stub.CreateTournament, _request(),
                            metadata=(("authorization", f"Basic {key}"),)) == unauth
            # bad settings: REST's 422 codes as INVALID_ARGUMENT, nothing created
            for bad, reason in (({"players": 6}, "invalid_request"), ({"players": 4}, "invalid_request"),
                                ({"game": "chess"}, "unknown_game"), ({"points": [0, 1]}, "invalid_request"),
                                ({"bye_points": 0.001}, "invalid_request"), ({"rounds": 0}, "invalid_request"),
                                ({"starts_at": 1}, "invalid_request"), ({"max_players": 10**6}, "invalid_request"),
                                ({"kind": "arena"}, "invalid_request"), ({"byes": "coin"}, "invalid_request"),
                                ({"options_json": json.dumps({"nope": 1})}, "invalid_request"),
                                ({"options_json": "[1]"}, "invalid_request"),
                                ({"time_control": game_pb2.TimeControl(kind="hourglass")}, "invalid_request")):
                assert _refused(stub.CreateTournament, _request(**bad), metadata=_key(key)) == (
                    grpc.StatusCode.INVALID_ARGUMENT, reason), bad
            assert org not in {t["organiser"] for t in c.get("/v1/tournaments", params={"limit": 200}).json()[
                "tournaments"]}

            small = stub.CreateTournament(_request(max_players=2, starts_at=int(time.time() * 1000) + 3_600_000),
                                          metadata=_key(key), timeout=30).tournament_id
            with_bots = stub.CreateTournament(_request(bots_allowed=True), metadata=_key(key),
                                              timeout=30).tournament_id
            # one quota for both surfaces: a third event over REST, then the fourth over gRPC is refused
            assert _new_event(c, key).status_code == 201
            assert _refused(stub.CreateTournament, _request(), metadata=_key(key)) == (
                grpc.StatusCode.RESOURCE_EXHAUSTED, "quota_exceeded")

            # what GetTournament answers is what REST answers
            rest = c.get(f"/v1/tournaments/{small}").json()
            got = stub.GetTournament(pb2.GetTournamentRequest(tournament_id=small), timeout=30)
            assert (got.tournament_id, got.kind, got.name, got.game, got.organiser, got.status, got.players,
                    got.rounds, got.round, got.byes, list(got.points), got.bye_points, json.loads(got.options_json),
                    got.rated, got.bots_allowed, got.max_players, got.entrants, got.created_ms, got.starts_at) == (
                rest["tournament_id"], "swiss", rest["name"], "toybids", org, "open", 2, 2, 0, "score", [1, 0],
                0.5, rest["options"], False, False, 2, 0, rest["created_ms"], rest["starts_at"])
            assert (got.time_control.kind, got.time_control.seconds_per_decision) == ("realtime", 0.05)
            assert rest["time_control"]["seconds_per_decision"] == 0.05

            not_found = (grpc.StatusCode.NOT_FOUND, "not_found")
            assert _refused(stub.GetTournament, pb2.GetTournamentRequest(tournament_id="nope")) == not_found
            assert _refused(stub.GetTournament, pb2.GetTournamentRequest(tournament_id=uuid.uuid4().hex)) == not_found
            assert _refused(stub.GetStandings, pb2.GetStandingsRequest(tournament_id=uuid.uuid4().hex)) == not_found
            assert _refused(stub.JoinTournament, pb2.JoinTournamentRequest(tournament_id=uuid.uuid4().hex),
                            metadata=_key(key)) == not_found
            assert _refused(stub.JoinTournament, pb2.JoinTournamentRequest(tournament_id=small)) == unauth
            # REST's order: an unknown event is refused before the caller is looked at
            nowhere = uuid.uuid4().hex
            assert c.post(f"/v1/tournaments/{nowhere}/withdraw").json()["error"]["code"] == "not_found"
            assert _refused(stub.WithdrawTournament, pb2.WithdrawTournamentRequest(tournament_id=nowhere)) == not_found

            # entries: again is no change; a bot where bots are not allowed; a full event
            join = pb2.JoinTournamentRequest(tournament_id=small)
            entry = stub.JoinTournament(join, metadata=_key(key), timeout=30)
            assert (entry.tournament_id, entry.player_id, entry.entered) == (small, org, True)
            assert stub.JoinTournament(join, metadata=_key(key), timeout=30).entered is False
            assert _refused(stub.JoinTournament, join, metadata=_key(bot_key)) == (
                grpc.StatusCode.PERMISSION_DENIED, "forbidden")
            assert stub.JoinTournament(pb2.JoinTournamentRequest(tournament_id=with_bots), metadata=_key(bot_key),
                                       timeout=30).entered
            assert stub.JoinTournament(join, metadata=_key(others[0][1]), timeout=30).entered
            assert _refused(stub.JoinTournament, join, metadata=_key(others[1][1])) == (
                grpc.StatusCode.FAILED_PRECONDITION, "tournament_full")
            assert c.get(f"/v1/tournaments/{small}").json()["entrants"] == 2         # REST sees gRPC's entries

            withdraw = pb2.WithdrawTournamentRequest(tournament_id=small)
            left = stub.WithdrawTournament(withdraw, metadata=_key(key), timeout=30)
            assert (left.entered, list(left.resigned)) == (True, [])
            assert stub.WithdrawTournament(withdraw, metadata=_key(key), timeout=30).entered is False
            assert stub.GetTournament(pb2.GetTournamentRequest(tournament_id=small), timeout=30).entrants == 1

            # a player who withdrew may not enter again once the event started
            for _pid, k in others:
                assert stub.JoinTournament(pb2.JoinTournamentRequest(tournament_id=with_bots), metadata=_key(k),
                                           timeout=30).entered
            assert stub.WithdrawTournament(pb2.WithdrawTournamentRequest(tournament_id=with_bots),
                                           metadata=_key(others[0][1]), timeout=30).entered
            assert _store_call(gw.settings.archive_url or "",
                               lambda s: s.pair_next(with_bots, int(time.time() * 1000)))
            assert _refused(stub.JoinTournament, pb2.JoinTournamentRequest(tournament_id=with_bots),
                            metadata=_key(others[0][1])) == (grpc.StatusCode.FAILED_PRECONDITION, "tournament_started")
            standings = stub.GetStandings(pb2.GetStandingsRequest(tournament_id=with_bots), timeout=30)
            rest_standings = c.get(f"/v1/tournaments/{with_bots}/standings").json()
            assert (standings.status, standings.round) == ("running", 1) == (rest_standings["status"],
                                                                             rest_standings["round"])
            assert [[list(t.players) for t in r.tables] for r in standings.rounds] == [
                [t["players"] for t in r["tables"]] for r in rest_standings["rounds"]]
            assert [(s.player_id, s.withdrawn) for s in standings.standings] == [
                (s["player_id"], s["withdrawn"]) for s in rest_standings["standings"]]

            listed = stub.ListTournaments(pb2.ListTournamentsRequest(status="open", limit=200), timeout=30)
            assert small in {t.tournament_id for t in listed.tournaments}
            assert with_bots not in {t.tournament_id for t in listed.tournaments}                 # running now
            assert [t.tournament_id for t in stub.ListTournaments(pb2.ListTournamentsRequest(), timeout=30)
                    .tournaments] == [t["tournament_id"] for t in c.get("/v1/tournaments").json()["tournaments"]]
            for bad in (pb2.ListTournamentsRequest(status="lost"), pb2.ListTournamentsRequest(limit=201),
                        pb2.ListTournamentsRequest(limit=-1)):
                assert _refused(stub.ListTournaments, bad) == (grpc.StatusCode.INVALID_ARGUMENT, "invalid_request")
        metrics = gw.metrics()
        assert 'skyboard_gateway_rpc_calls_total{code="NOT_FOUND",rpc="GetTournament"} 2.0' in metrics
        assert 'skyboard_gateway_rpc_calls_total{code="OK",rpc="CreateTournament"} 2.0' in metrics
        assert 'skyboard_gateway_rpc_seconds_count{rpc="JoinTournament"}' in metrics
    finally:
        channel.close()


def test_grpc_calls_count_against_the_rest_rate_limits(make_gateway) -> None:
    """An address's anonymous budget is one for REST requests and gRPC calls alike."""
    # a day-long window, and not its last minute: the budget cannot refill between the calls
    gw = make_gateway(outcomes=False, rate_limit_ip=4, rate_limit_window_s=86_400, grpc_port=free_port())
    fresh_window(86_400)
    channel, stub = _stub(gw)
    try:
        with gw.client() as c:
            assert c.get("/v1/tournaments").status_code == 200
            assert c.get("/v1/tournaments").status_code == 200
        for _ in range(2):
            stub.ListTournaments(pb2.ListTournamentsRequest(), timeout=30)
        assert _refused(stub.ListTournaments, pb2.ListTournamentsRequest()) == (
            grpc.StatusCode.RESOURCE_EXHAUSTED, "rate_limited")
    finally:
        channel.close()


def _watch(stub: pb2_grpc.TournamentServiceStub, tournament_id: str, after: str = "") -> list[pb2.TournamentEvent]:
    return list(stub.WatchTournament(pb2.WatchTournamentRequest(tournament_id=tournament_id, after_event_id=after),
                                     timeout=180))


def _first(stub: pb2_grpc.TournamentServiceStub, request: pb2.WatchTournamentRequest,
           timeout: float) -> pb2.TournamentEvent:
    return next(iter(stub.WatchTournament(request, timeout=timeout)))


def test_watch_tournament_relays_the_pairings_and_the_end(make_gateway, service) -> None:
    """Four players enter over gRPC; a watcher opened before the start sees each round's pairing as the director
    writes it and then the end, whose standings are GetStandings'; one player withdraws over gRPC mid-round (its
    running game is resigned); a second watcher resumes after an event id."""
    gw = make_gateway(grpc_port=free_port())
    channel, stub = _stub(gw)
    try:
        with gw.client() as c:
            players = [new_account(c, f"watch-{i}") for i in range(4)]
        key_of = dict(players)
        tid = stub.CreateTournament(_request(), metadata=_key(players[0][1]), timeout=30).tournament_id
        for _pid, key in players:
            assert stub.JoinTournament(pb2.JoinTournamentRequest(tournament_id=tid), metadata=_key(key),
                                       timeout=30).entered
        live: list[pb2.TournamentEvent] = []
        failed: list[BaseException] = []

        def watch() -> None:
            try:
                live.extend(_watch(stub, tid))
            except BaseException as exc:
                failed.append(exc)

        watcher = threading.Thread(target=watch, daemon=True)
        watcher.start()
        director = DirectorThread(gw.settings, service.settings.key_prefix, service.addr,
                                  f"tournaments-{uuid.uuid4().hex[:6]}")
        try:
            deadline = time.monotonic() + 60
            while not (rounds := stub.GetStandings(pb2.GetStandingsRequest(tournament_id=tid), timeout=30).rounds) \
                    or not all(t.game_id for t in rounds[0].tables):
                assert time.monotonic() < deadline, "round 1 was not paired"
                time.sleep(0.05)
            table = rounds[0].tables[0]
            leaver = table.players[0]
            left = stub.WithdrawTournament(pb2.WithdrawTournamentRequest(tournament_id=tid),
                                           metadata=_key(key_of[leaver]), timeout=30)
            assert (left.entered, list(left.resigned)) == (True, [table.game_id])
            deadline = time.monotonic() + 120
            while stub.GetTournament(pb2.GetTournamentRequest(tournament_id=tid), timeout=30).status != "finished":
                assert time.monotonic() < deadline, "the event did not finish"
                time.sleep(0.1)
                service.sweep()
        finally:
            director.stop()
        watcher.join(60)
        assert not watcher.is_alive() and not failed, failed               # the stream ended after `end`
        kinds = [e.kind for e in live]
        assert kinds.count("pairing") == 2 and kinds.count("end") == 1 and kinds[-1] == "end", kinds
        pairing = json.loads(live[0].data_json)
        assert (live[0].kind, pairing["round"]) == ("pairing", 1)
        assert [t["players"] for t in pairing["tables"]] == [list(t.players) for t in rounds[0].tables]
        final = stub.GetStandings(pb2.GetStandingsRequest(tournament_id=tid), timeout=30)
        assert final.status == "finished" and [r.round for r in final.rounds] == [1, 2]
        assert leaver not in {p for t in final.rounds[1].tables for p in t.players} | set(final.rounds[1].byes)
        assert [(r["player_id"], r["points"]) for r in json.loads(live[-1].data_json)["standings"]] == [
            (s.player_id, s.points) for s in final.standings]
        with gw.client() as c:
            rest = c.get(f"/v1/tournaments/{tid}/standings").json()
        assert [(r["player_id"], r["points"], r["buchholz"], r["withdrawn"]) for r in rest["standings"]] == [
            (s.player_id, s.points, s.buchholz, s.withdrawn) for s in final.standings]
        assert [[(list(t.places), t.ended) for t in r.tables] for r in final.rounds] == [
            [(t["places"], t["ended"]) for t in r["tables"]] for r in rest["rounds"]]
        assert all(t.ended for r in final.rounds for t in r.tables)
        # a finished event takes no entry
        with gw.client() as c:
            _late, late_key = new_account(c, "late")
        assert _refused(stub.JoinTournament, pb2.JoinTournamentRequest(tournament_id=tid), metadata=_key(late_key)) \
            == (grpc.StatusCode.FAILED_PRECONDITION, "tournament_finished")
        # the kept history again, and resumed after an event id it sent
        assert [e.event_id for e in _watch(stub, tid)] == [e.event_id for e in live]
        assert [e.event_id for e in _watch(stub, tid, live[0].event_id)] == [e.event_id for e in live[1:]]
        assert _refused(_first, stub, pb2.WatchTournamentRequest(tournament_id=tid, after_event_id="x")) == (
            grpc.StatusCode.INVALID_ARGUMENT, "invalid_request")
        assert _refused(_first, stub, pb2.WatchTournamentRequest(tournament_id=uuid.uuid4().hex)) == (
            grpc.StatusCode.NOT_FOUND, "not_found")
    finally:
        channel.close()


def _open_streams(gw) -> float:
    line = next(x for x in gw.metrics().splitlines() if x.startswith("skyboard_gateway_rpc_streams "))
    return float(line.split()[1])


def test_watch_streams_are_bounded_per_address_and_given_back(make_gateway) -> None:
    """GATEWAY_STREAM_LIMIT_IP bounds the open WatchTournament streams of an address (with its SSE streams); a
    stream the client cancels gives its place back."""
    gw = make_gateway(outcomes=False, stream_limit_ip=1, grpc_port=free_port())
    channel, stub = _stub(gw)
    try:
        with gw.client() as c:
            _pid, key = new_account(c, "watcher")
        tid = stub.CreateTournament(_request(starts_at=int(time.time() * 1000) + 3_600_000), metadata=_key(key),
                                    timeout=30).tournament_id
        watch = pb2.WatchTournamentRequest(tournament_id=tid)
        first = stub.WatchTournament(watch, timeout=120)       # nothing to send yet: it stays open
        deadline = time.monotonic() + 30
        while _open_streams(gw) != 1:
            assert time.monotonic() < deadline, "the first stream never opened"
            time.sleep(0.05)
        assert _refused(_first, stub, watch) == (grpc.StatusCode.RESOURCE_EXHAUSTED, "too_many_streams")
        first.cancel()
        deadline = time.monotonic() + 30
        while _open_streams(gw) != 0:
            assert time.monotonic() < deadline, "a cancelled stream kept its place"
            time.sleep(0.05)
        again = stub.WatchTournament(watch, timeout=120)
        deadline = time.monotonic() + 30
        while _open_streams(gw) != 1:
            assert time.monotonic() < deadline, "the place was not given back"
            time.sleep(0.05)
        again.cancel()
    finally:
        channel.close()


def test_grpc_creates_and_shows_an_arena_as_rest(make_gateway) -> None:
    gw = make_gateway(outcomes=False, grpc_port=free_port())
    channel, stub = _stub(gw)
    try:
        with gw.client() as c:
            _org, key = new_account(c, "arena-organiser")
            now = int(time.time() * 1000)
            arena = dict(kind="arena", rounds=0, byes="", starts_at=now, ends_at=now + 600_000, players=3)
            for bad in ({"ends_at": None}, {"ends_at": now + 10}, {"rounds": 2}, {"streak_factor": 5}):
                fields = {**arena, **bad}
                if fields["ends_at"] is None:
                    del fields["ends_at"]
                assert _refused(stub.CreateTournament, _request(**fields), metadata=_key(key)) == (
                    grpc.StatusCode.INVALID_ARGUMENT, "invalid_request"), bad
            tid = stub.CreateTournament(_request(**arena, streak_after=3, bots_after_s=1.5), metadata=_key(key),
                                        timeout=30).tournament_id
            got = stub.GetTournament(pb2.GetTournamentRequest(tournament_id=tid), timeout=30)
            rest = c.get(f"/v1/tournaments/{tid}").json()
            assert (got.kind, got.rounds, got.ends_at, got.streak_after, got.streak_factor, got.bots_after_s,
                    list(got.points)) == ("arena", 0, now + 600_000, 3, 2, 1.5, [2, 1, 0])
            assert (rest["kind"], rest["ends_at"], rest["streak_after"], rest["bots_after_s"]) == (
                "arena", now + 600_000, 3, 1.5)
            assert not stub.GetStandings(pb2.GetStandingsRequest(tournament_id=tid), timeout=30).rounds
    finally:
        channel.close()
