"""The public gRPC port: the REST gateway's rate limits apply to it, and GameAdmin is neither served nor listed
there, only on the internal listener (docs/decisions/abuse-bounds.md, "Streams and the public gRPC port")."""

from __future__ import annotations

import grpc
import pytest
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc

from services.gamestate.client import GameServiceError
from services.gamestate.client_sync import GameClient
from services.gamestate.pb import pb2, pb2_grpc
from services.gamestate.public_port import peer_address
from tests.rate_windows import HOUR, fresh_window

C = grpc.StatusCode


def _refusals(client: GameClient, calls: int, game_id: str, token: str | None) -> list[GameServiceError]:
    refused = []
    for _ in range(calls):
        try:
            client.get_game(game_id, token)
        except GameServiceError as exc:
            refused.append(exc)
    return refused


def test_the_public_port_rate_limits_per_address_and_per_token(make_instance, make_client):
    inst = make_instance(rate_limit_ip=20, rate_limit_token=10, rate_limit_ip_ceiling=60, rate_limit_window_s=HOUR)
    client = make_client(inst)
    fresh_window()  # every call below counts against one window: a boundary among them would refill the buckets
    game = client.create_game("toybids", 2, seed=91)  # one anonymous call of the 20
    refused = _refusals(client, 30, game.game_id, None)
    assert len(refused) == 11, [str(e) for e in refused]  # 1 + 19 answered, the next 11 refused
    assert all(e.code == C.RESOURCE_EXHAUSTED and e.reason == "rate_limited" for e in refused)
    assert "20 calls per 3600 s for this address" in refused[0].message
    assert 0 < refused[0].extra["retry_after_s"] <= HOUR
    # a seat token has its own bucket (the anonymous one is empty), WatchGame counts as a call too
    assert len(_refusals(client, 12, game.game_id, game.token(0))) == 2
    with pytest.raises(GameServiceError) as caught:
        list(client.watch(game.game_id, game.token(0)))
    assert caught.value.code == C.RESOURCE_EXHAUSTED
    assert "10 calls per 3600 s for this credential" in caught.value.message
    # the internal listener (the gateway's, the workers') is not limited: the gateway limits players itself
    with GameClient(inst.admin_target) as internal:
        assert not _refusals(internal, 30, game.game_id, None)


def test_a_made_up_token_counts_as_anonymous(make_instance, make_client):
    client = make_client(make_instance(rate_limit_ip=5, rate_limit_token=10, rate_limit_ip_ceiling=60,
                                       rate_limit_window_s=HOUR))
    fresh_window()
    game = client.create_game("toybids", 2, seed=92)  # the 1st anonymous call of 5
    answers = [e for i in range(8) for e in _refusals(client, 1, game.game_id, f"made-up-token-{i}")]
    assert [e.code for e in answers] == [C.UNAUTHENTICATED] * 4 + [C.RESOURCE_EXHAUSTED] * 4, answers
    assert "5 calls per 3600 s for this address" in answers[-1].message


def _services(target: str) -> set[str]:
    with grpc.insecure_channel(target) as channel:
        stub = reflection_pb2_grpc.ServerReflectionStub(channel)
        reply = next(stub.ServerReflectionInfo(iter([reflection_pb2.ServerReflectionRequest(list_services="")]),
                                               timeout=5))
        return {s.name for s in reply.list_services_response.service}


def _described(target: str, symbol: str) -> reflection_pb2.ServerReflectionResponse:
    with grpc.insecure_channel(target) as channel:
        stub = reflection_pb2_grpc.ServerReflectionStub(channel)
        request = reflection_pb2.ServerReflectionRequest(file_containing_symbol=symbol)
        return next(stub.ServerReflectionInfo(iter([request]), timeout=5))


def test_game_admin_is_only_on_the_internal_listener(instance, make_client, admin):
    from google.protobuf import descriptor_pb2

    assert instance.running.admin_port != instance.running.port
    assert _services(instance.target) == {"skyboard.v1.GameService", "grpc.health.v1.Health",
                                          "grpc.reflection.v1alpha.ServerReflection"}
    assert _described(instance.target, "skyboard.v1.GameAdmin").error_response.error_code == C.NOT_FOUND.value[0]
    found = _described(instance.target, "skyboard.v1.GameService").file_descriptor_response.file_descriptor_proto
    files = [descriptor_pb2.FileDescriptorProto.FromString(f) for f in found]
    assert [s.name for f in files for s in f.service] == ["GameService"]
    # not served there, whatever the credential
    with grpc.insecure_channel(instance.target) as channel, pytest.raises(grpc.RpcError) as caught:
        pb2_grpc.GameAdminStub(channel).CreateGame(
            pb2.OwnedCreateGameRequest(game=pb2.CreateGameRequest(game="toybids", players=2)), timeout=5,
            metadata=admin.metadata)
    assert caught.value.code() == C.UNIMPLEMENTED
    assert admin.create_game("toybids", 2).game_id  # on the internal listener


@pytest.mark.parametrize(("peer", "address"), [
    ("ipv4:10.1.2.3:5000", "10.1.2.3"), ("ipv6:[::1]:41234", "::1"), ("ipv6:[2001:db8::7]:1", "2001:db8::7"),
    ("unix:/tmp/s", "unix:/tmp/s"), ("", "unknown"), (None, "unknown"),
])
def test_the_peer_address_keys_the_bucket(peer, address):
    assert peer_address(peer) == address


def test_with_no_limit_telling_callers_apart_a_token_is_not_looked_up(make_instance, make_client):
    """The token index is read to choose a call's bucket; with only the address ceiling (or no limit) every call
    counts alike, so the public port spends no Redis read on it, and the ceiling still refuses."""
    # a per-bot limit tells nobody apart without an account store (no seat can be a bot account's)
    inst = make_instance(rate_limit_ip=0, rate_limit_token=0, rate_limit_bot_token=50, rate_limit_ip_ceiling=6,
                         rate_limit_window_s=HOUR)
    client = make_client(inst)
    gate = inst.running.gate
    looked_up: list[str] = []
    known = gate._known

    async def counting(token: str) -> bool:
        looked_up.append(token)
        return await known(token)

    gate._known = counting
    fresh_window()
    game = client.create_game("toybids", 2, seed=93)
    refused = _refusals(client, 7, game.game_id, game.token(0))
    assert looked_up == []
    assert len(refused) == 2 and all(e.code == C.RESOURCE_EXHAUSTED for e in refused)
    assert "6 calls per 3600 s for this address (all requests)" in refused[0].message
