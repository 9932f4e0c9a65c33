"""Every refusal has the documented status code and changes nothing; no input crashes the server."""

from __future__ import annotations

import json

import grpc
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from services.gamestate.keys import Keys
from services.gamestate.pb import pb2
from tests.services.helpers import expect_error

C = grpc.StatusCode


def _fingerprint(client, rdb, prefix, created):
    """Everything that must stay unchanged by a refused call."""
    views = [client.get_game(created.game_id, created.token(s)) for s in range(2)]
    log_len = rdb.llen(Keys(prefix).log(created.game_id))
    stream_len = rdb.xlen(Keys(prefix).events(created.game_id))
    return [(v.version, v.digest, json.dumps(v.view, sort_keys=True)) for v in views], log_len, stream_len


def test_catalog_lists_registered_games_and_bot_levels(client, registry):
    games, levels = client.catalog()
    assert [g["name"] for g in games] == registry.names()
    toy = next(g for g in games if g["name"] == "toybids")
    assert toy["min_players"] == 2 and toy["options"]["rounds"]["default"] == 3
    assert levels == ["random", "greedy", "mcts-easy", "fast", "mcts-normal", "mcts-hard"] or "random" in levels



def test_catalog_details_describe_every_level_with_its_think_time_per_game(client, registry):
    _games, levels, details = client.catalog_details()
    assert [d["name"] for d in details] == levels
    by_name = {d["name"]: d for d in details}
    assert set(by_name["mcts-normal"]["games"]) == set(registry.names())
    if "opensky" in registry.names():  # the real engines: measured figures (bench/bot_cost.py)
        assert by_name["mcts-normal"]["games"]["opensky"]["think_seconds"] > 0
    from ai.level_figures import published_ladders

    ladders = published_ladders()
    for level in levels:
        assert by_name[level]["description"] and by_name[level]["label"]
        for game, entry in by_name[level]["games"].items():
            played = entry.get("same_as") or level  # a level that plays as another shows that level's ratings
            assert entry["offered"] == (played == level), (level, game)
            for players, rated in entry["ratings"].items():  # one fit per table size, with its interval
                rung = ladders[game][players][played]
                expected = None if rung["rating"] is None else {k: rung[k] for k in ("rating", "low", "high", "games")}
                assert rated == expected, (level, game, players)
            if entry["ratings"]:
                smallest = min(entry["ratings"], key=int)
                assert entry["rating_players"] == int(smallest)
                assert entry["rating"] == (entry["ratings"][smallest] or {}).get("rating")
    if "opensky" in registry.names():  # the real engines, measured in paired ledgers (`research.lab.ladder_fit`)
        import ai

        assert by_name["mcts-hard"]["games"]["opensky"]["same_as"] == "fast"
        assert by_name["mcts-hard"]["games"]["opensky"]["ratings"] == by_name["fast"]["games"]["opensky"]["ratings"]
        for game in ("opensky", "blueskies", "aeroplanes"):
            offered = ai.ladder(game)
            assert [level for level in levels if by_name[level]["games"][game]["offered"]] == offered
            rated = [by_name[level]["games"][game]["rating"] for level in offered]  # the smallest table
            assert None not in rated and rated == sorted(set(rated)), (game, rated)  # every strength measured, in order
            for level in set(levels) - set(offered):
                assert by_name[level]["games"][game]["same_as"] in offered, (game, level)


@pytest.mark.parametrize(
    ("kwargs", "needle"),
    [
        ({"game": "no-such-game", "players": 2}, "unknown game"),
        ({"game": "toybids", "players": 9}, "2-3 players"),
        ({"game": "toybids", "players": 2, "options": {"rounds": 7}}, "rounds"),
        ({"game": "toybids", "players": 2, "options": {"nope": 1}}, "unknown option"),
        ({"game": "toybids", "players": 2, "bots": {1: "grandmaster"}}, "unknown bot level"),
        ({"game": "toybids", "players": 2, "bots": {5: "random"}}, "not a seat"),
        ({"game": "toybids", "players": 2, "turn_seconds": -1.0}, "turn_seconds"),
        ({"game": "toybids", "players": 2, "seed": -5}, "seed"),
    ],
)
def test_create_with_bad_input_is_invalid_argument(client, kwargs, needle):
    err = expect_error(C.INVALID_ARGUMENT, client.create_game, **kwargs)
    assert needle in err.message
    assert client.list_games() == []


def test_create_with_options_json_that_is_not_an_object(client):
    with pytest.raises(grpc.RpcError) as info:
        client.stub.CreateGame(pb2.CreateGameRequest(game="toybids", players=2, options_json="[1,"))
    assert info.value.code() == C.INVALID_ARGUMENT
    with pytest.raises(grpc.RpcError) as info:
        client.stub.CreateGame(pb2.CreateGameRequest(game="toybids", players=2, options_json="[1]"))
    assert info.value.code() == C.INVALID_ARGUMENT


def test_every_error_code_leaves_the_game_unchanged(client, rdb, prefix):
    game = client.create_game("toybids", 2, seed=3)
    other = client.create_game("toybids", 2, seed=4)
    gid, t0, t1 = game.game_id, game.token(0), game.token(1)
    hand0 = client.get_game(gid, t0).view["hand"]
    hand1 = client.get_game(gid, t1).view["hand"]
    client.submit(gid, t1, {"type": "bid", "card": hand1[0]}, 0)  # seat 1 bids: version 1
    before = _fingerprint(client, rdb, prefix, game)

    bad = [
        # INVALID_ARGUMENT: malformed input
        (C.INVALID_ARGUMENT, lambda: client.submit(gid, t0, "{not json", 1)),
        (C.INVALID_ARGUMENT, lambda: client.submit(gid, t0, {"type": "fly"}, 1)),
        (C.INVALID_ARGUMENT, lambda: client.submit(gid, t0, {"type": "bid", "card": 7}, 1)),
        (C.INVALID_ARGUMENT, lambda: client.submit(gid, t0, {"type": "bid"}, 1)),
        (C.INVALID_ARGUMENT, lambda: client.submit(gid, t0, [1, 2], 1)),
        (C.INVALID_ARGUMENT, lambda: client.submit(gid, t0, {"type": "bid", "card": hand0[0]}, 1, "bad key")),
        (C.INVALID_ARGUMENT, lambda: client.get_game("../etc/passwd")),
        (C.INVALID_ARGUMENT, lambda: client.watch(gid, after_version=-1).__next__()),
        # FAILED_PRECONDITION: illegal actions, with the engine's rule id
        (C.FAILED_PRECONDITION, lambda: client.submit(gid, t0, {"type": "bid", "card": hand1[1]}, 1)),
        (C.FAILED_PRECONDITION, lambda: client.submit(gid, t1, {"type": "bid", "card": hand1[1]}, 1)),
        (C.FAILED_PRECONDITION, lambda: client.get_log(gid)),
        # UNAUTHENTICATED: missing, unknown or forged tokens
        (C.UNAUTHENTICATED, lambda: client.submit(gid, "", {"type": "bid", "card": hand0[0]}, 1)),
        (C.UNAUTHENTICATED, lambda: client.submit(gid, "sbt_made-up", {"type": "bid", "card": hand0[0]}, 1)),
        (C.UNAUTHENTICATED, lambda: client.legal_actions(gid, "")),
        (C.UNAUTHENTICATED, lambda: client.get_game(gid, "sbb_" + gid + ":1:deadbeef")),
        # PERMISSION_DENIED: a token of another game
        (C.PERMISSION_DENIED, lambda: client.submit(gid, other.token(0), {"type": "bid", "card": hand0[0]}, 1)),
        (C.PERMISSION_DENIED, lambda: client.get_game(gid, other.token(1))),
        # NOT_FOUND: unknown game
        (C.NOT_FOUND, lambda: client.submit("nosuchgame", t0, {"type": "bid", "card": hand0[0]}, 1)),
        (C.NOT_FOUND, lambda: client.get_game("nosuchgame")),
        # ABORTED: stale expected_version
        (C.ABORTED, lambda: client.submit(gid, t0, {"type": "bid", "card": hand0[0]}, 0)),
        (C.ABORTED, lambda: client.submit(gid, t0, {"type": "bid", "card": hand0[0]}, 2)),
    ]
    for code, call in bad:
        expect_error(code, call)
        assert _fingerprint(client, rdb, prefix, game) == before, f"{code.name} changed the game"
    # and the game goes on normally afterwards
    assert client.submit(gid, t0, {"type": "bid", "card": hand0[0]}, 1).version == 2


def test_illegal_action_carries_engine_message_and_rule_TOY_3(client):
    game = client.create_game("toybids", 2, seed=3)
    request = pb2.SubmitActionRequest(
        game_id=game.game_id,
        token=game.token(0),
        action_json=json.dumps({"type": "bid", "card": "card-000001"}),
        expected_version=0,
    )
    with pytest.raises(grpc.RpcError) as info:
        client.stub.SubmitAction(request)
    rpc = info.value
    assert rpc.code() == C.FAILED_PRECONDITION
    details = json.loads(rpc.details())
    assert details == {"reason": "illegal_action", "message": details["message"], "rule": "TOY-3"}
    assert "card-000001" in details["message"]
    assert ("rule", "TOY-3") in tuple((m.key, m.value) for m in rpc.trailing_metadata())


_FUZZ_GAMES: dict[int, object] = {}


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    action=st.one_of(
        st.text(max_size=50),
        st.recursive(
            st.none() | st.booleans() | st.integers() | st.text(max_size=8),
            lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
            max_leaves=8,
        ).map(json.dumps),
    ),
    version=st.integers(min_value=-(2**63), max_value=2**63 - 1),
    key=st.text(max_size=20),
)
def test_no_input_crashes_the_server(client, action, version, key):
    game = _FUZZ_GAMES.get(id(client))
    if game is None:
        game = _FUZZ_GAMES[id(client)] = client.create_game("toybids", 2, seed=11)
    request = pb2.SubmitActionRequest(
        game_id=game.game_id, token=game.token(0), action_json=action, expected_version=version, idempotency_key=key
    )
    try:
        client.stub.SubmitAction(request, timeout=5)
    except grpc.RpcError as exc:
        assert exc.code() in (C.INVALID_ARGUMENT, C.FAILED_PRECONDITION, C.ABORTED), exc
        json.loads(exc.details())
    assert client.get_game(game.game_id).version in (0, 1)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(game_id=st.text(max_size=70), token=st.text(max_size=70), after=st.none() | st.integers(-5, 5))
def test_no_game_id_or_token_crashes_any_read(client, game_id, token, after):
    expected = {C.INVALID_ARGUMENT, C.NOT_FOUND, C.UNAUTHENTICATED, C.PERMISSION_DENIED}
    calls = [
        lambda: client.stub.GetGame(pb2.GetGameRequest(game_id=game_id, token=token), timeout=5),
        lambda: client.stub.ListLegalActions(pb2.ListLegalActionsRequest(game_id=game_id, token=token), timeout=5),
        lambda: client.stub.GetLog(pb2.GetLogRequest(game_id=game_id), timeout=5),
        lambda: client.stub.Resign(pb2.ResignRequest(game_id=game_id, token=token, bot_level=token), timeout=5),
        lambda: client.stub.RotateToken(pb2.RotateTokenRequest(game_id=game_id, token=token), timeout=5),
        lambda: next(iter(client.stub.WatchGame(
            pb2.WatchGameRequest(game_id=game_id, token=token, after_version=after), timeout=5))),
    ]
    for call in calls:
        with pytest.raises(grpc.RpcError) as info:
            call()
        assert info.value.code() in expected, info.value
        json.loads(info.value.details())


def test_lost_redis_is_unavailable_not_a_crash(make_instance, make_client):
    import redis.asyncio as aioredis
    from redis.asyncio.retry import Retry
    from redis.backoff import NoBackoff

    inst = make_instance(sweeper=False)
    client = make_client(inst)
    game = client.create_game("toybids", 2, seed=12)
    store = inst.running.service.store
    working = store.redis
    # nothing listens on port 1
    store.redis = aioredis.Redis(host="127.0.0.1", port=1, socket_connect_timeout=0.5, retry=Retry(NoBackoff(), 0))
    try:
        err = expect_error(C.UNAVAILABLE, client.get_game, game.game_id)
        assert err.reason == "unavailable"
    finally:
        inst.run(store.redis.aclose())
        store.redis = working
    assert client.get_game(game.game_id).version == 0  # and it serves again once Redis is back
