"""The gateway's gRPC listener, in the gateway process and its event loop, on a port of its own beside uvicorn's.

Why the gateway and not the game-state service: tournaments are the gateway's (its SQL, its Redis feed, its
accounts, its quotas and rate limits), and the REST routes' operations (services/gateway/domain/tournaments.py)
run here; serving them from this process keeps one implementation and one set of limits. Why a port of its own:
uvicorn speaks HTTP/1.1 and gRPC needs HTTP/2. The listener serves TournamentService, health (SERVING while the
gateway runs) and reflection of exactly these."""

from __future__ import annotations

from dataclasses import dataclass

import grpc
from google.protobuf import descriptor_pb2, descriptor_pool
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection, reflection_pb2

from proto.skyboard.v1 import game_service_pb2, tournament_service_pb2
from proto.skyboard.v1 import tournament_service_pb2_grpc as pb2_grpc
from services.gateway.context import Context
from services.gateway.rpc.calls import Calls
from services.gateway.rpc.tournaments import SERVICE_NAME, TournamentServicer

OPTIONS = [
    # a second gateway must not bind the same port silently (gRPC's default SO_REUSEPORT): a taken port fails
    ("grpc.so_reuseport", 0),
    ("grpc.max_receive_message_length", 1 << 20),
    ("grpc.keepalive_permit_without_calls", 1),
    ("grpc.http2.min_ping_interval_without_data_ms", 5_000),
]


class PortTaken(RuntimeError):
    """The gateway cannot listen on GATEWAY_GRPC_HOST:GATEWAY_GRPC_PORT."""


@dataclass
class RpcServer:
    server: grpc.aio.Server
    port: int

    async def stop(self, grace_s: float = 1.0) -> None:
        await self.server.stop(grace_s)


def _described() -> descriptor_pool.DescriptorPool:
    """What reflection describes: this listener's services, and of game_service.proto (which TournamentService's
    messages import) the messages alone: the game-state service's services are not served here, so not named."""
    files = [descriptor_pb2.FileDescriptorProto.FromString(m.DESCRIPTOR.serialized_pb)
             for m in (health_pb2, reflection_pb2, game_service_pb2, tournament_service_pb2)]
    del files[2].service[:]
    pool = descriptor_pool.DescriptorPool()
    for file in files:  # in dependency order
        pool.Add(file)
    return pool


async def start(c: Context) -> RpcServer | None:
    """Listen on the settings' gRPC address (None when GATEWAY_GRPC_PORT is 0)."""
    s = c.settings
    if not s.grpc_port:
        return None
    server = grpc.aio.server(options=OPTIONS)
    pb2_grpc.add_TournamentServiceServicer_to_server(TournamentServicer(Calls(c)), server)
    health_servicer = health.aio.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    names = (SERVICE_NAME, health_pb2.DESCRIPTOR.services_by_name["Health"].full_name, reflection.SERVICE_NAME)
    reflection.enable_server_reflection(names, server, _described())
    addr = f"{s.grpc_host}:{s.grpc_port}"
    try:
        port = server.add_insecure_port(addr)
    except RuntimeError:
        port = 0
    if not port:
        raise PortTaken(f"cannot listen on {addr} (GATEWAY_GRPC_HOST, GATEWAY_GRPC_PORT): the address is in use or "
                        "unavailable")
    await server.start()
    for name in ("", SERVICE_NAME):
        await health_servicer.set(name, health_pb2.HealthCheckResponse.SERVING)
    return RpcServer(server, port)
