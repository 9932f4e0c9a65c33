"""The grpc.aio servicer: protobuf in, GameStateService, protobuf out.

Every handler maps ServiceError to its status (details = JSON reason/message/
rule, trailing metadata "rule" for illegal actions) and any unexpected
exception to INTERNAL, so no input can crash the server. Two listeners: the
public one (GameService with per-caller limits, health, reflection of the public
services only) and the internal one (GameAdmin, and GameService unlimited).
"""

from __future__ import annotations

import asyncio
import functools
import json
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass

import grpc
import redis.asyncio as aioredis
from google.protobuf import descriptor_pb2, descriptor_pool
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection, reflection_pb2
from redis import exceptions as redis_errors

from services.accounts.revocation import Ended
from services.archive.repository import ArchiveRepository
from services.common.credentials import ServiceCredentials
from services.common.redis_clients import async_redis
from services.common.settings import Settings
from services.gamestate import errors, metrics
from services.gamestate.archiver import Archiver, run_archiver
from services.gamestate.bots import CeleryDispatcher, Dispatcher, NoDispatcher, bot_level_details_json
from services.gamestate.creation import CreateArgs
from services.gamestate.lookup import Registry
from services.gamestate.pb import SERVICE_NAME, pb2, pb2_grpc
from services.gamestate.public_port import AccountStore, PublicGate
from services.gamestate.quotas import QuotaBook, Quotas
from services.gamestate.replies import summary_of as _summary
from services.gamestate.replies import view_of as _view
from services.gamestate.service import GameStateService
from services.gamestate.store import Store
from services.gamestate.wire import dumps

log = logging.getLogger(__name__)

#: redis-py 8 caps an asyncio pool at 100 connections by default and then fails calls with
#: MaxConnectionsError; every watched game's reader (services/gamestate/fanout.py) holds one connection in a
#: blocking XREAD, so the cap must be far above the number of watched games plus concurrent calls (redis-py < 8
#: had no cap).
REDIS_MAX_CONNECTIONS = 10_000

#: Health name that answers SERVING as long as the process serves at all: for liveness probes, which must
#: not restart instances during a Redis outage ("" and SERVICE_NAME follow Redis: readiness).
LIVENESS = "liveness"

INTERNAL_DETAILS = json.dumps({"reason": "internal", "message": "internal error", "rule": None})
REDIS_DETAILS = json.dumps({"reason": "unavailable", "message": "game storage unavailable; retry", "rule": None})


async def _fail(context: grpc.aio.ServicerContext, exc: errors.ServiceError) -> None:
    if exc.rule:
        context.set_trailing_metadata((("rule", exc.rule),))
    await context.abort(exc.code, exc.details())


def _handler(rpc: str) -> Callable:
    """Wrap a unary handler: latency metric per RPC and game, error mapping."""

    def wrap(fn):
        @functools.wraps(fn)
        async def run(self, request, context):
            start = time.perf_counter()
            game = "-"
            try:
                gate = getattr(self, "gate", None)
                if gate is not None:  # the public port: who calls (a seat token or an API key's seat), limits
                    request = await gate.authorize(context, request, spectator_ok=rpc == "GetGame")
                result = await fn(self, request, context)
                game = self._game_label(request)
                return result
            except errors.ServiceError as exc:
                game = self._game_label(request)
                await _fail(context, exc)
            except (asyncio.CancelledError, grpc.aio.AbortError):
                raise
            except redis_errors.RedisError:
                log.exception("%s: Redis unavailable", rpc)
                await context.abort(grpc.StatusCode.UNAVAILABLE, REDIS_DETAILS)
            except Exception:
                log.exception("%s failed", rpc)
                await context.abort(grpc.StatusCode.INTERNAL, INTERNAL_DETAILS)
            finally:
                metrics.RPC_LATENCY.labels(rpc, game).observe(time.perf_counter() - start)

        return run

    return wrap


def _create_args(
    r: pb2.CreateGameRequest, owner: str = "", rated: bool = False, seat_players: dict[int, str] | None = None
) -> CreateArgs:
    control = _control_json(r.time_control) if r.HasField("time_control") else None
    return CreateArgs(r.game, r.players, r.seed if r.HasField("seed") else None, r.options_json, dict(r.bots),
                      r.turn_seconds, owner, control, rated, dict(seat_players or {}))


def _control_json(tc: pb2.TimeControl) -> dict:
    """The message as its JSON shape, for clocks.TimeControl.parse to check: the kind's own fields, and any other
    field that is set (refused there, so a contradictory message is an error rather than half ignored)."""
    own = {"realtime": ("seconds_per_decision", "reserve_seconds"), "correspondence": ("days_per_decision",)}
    fields = ("seconds_per_decision", "reserve_seconds", "days_per_decision")
    return {"kind": tc.kind, **{f: getattr(tc, f) for f in fields if f in own.get(tc.kind, ()) or getattr(tc, f)}}


def _created(created) -> pb2.CreateGameResponse:
    game_id, seats, version = created
    return pb2.CreateGameResponse(
        game_id=game_id, seats=[pb2.SeatInfo(seat=s, token=t, bot=b) for s, t, b in seats], version=version
    )


def _submitted(r) -> pb2.SubmitActionResponse:
    return pb2.SubmitActionResponse(
        version=r.version, events_json=[dumps(e) for e in r.events], status=r.status, to_act=r.to_act,
        replayed=r.replayed,
    )


class GameServicer(pb2_grpc.GameServiceServicer):
    """gRPC front of one GameStateService. With a `gate` (the public listener) every call is rate-limited and
    WatchGame streams are bounded per caller; the internal listener serves it without."""

    def __init__(self, service: GameStateService, gate: PublicGate | None = None):
        self.service = service
        self.gate = gate

    def _game_label(self, request) -> str:
        """The game name for metric labels: only registered names, so label sets stay bounded."""
        game = getattr(request, "game", "")
        if game and game in self.service.registry.names():
            return game
        return self.service.lookup.game_names.get(getattr(request, "game_id", ""), "-")

    @_handler("ListCatalog")
    async def ListCatalog(self, request, context):
        games, levels = self.service.catalog()
        return pb2.ListCatalogResponse(
            games=[
                pb2.GameDescription(
                    name=g["name"],
                    title=g["title"],
                    min_players=g["min_players"],
                    max_players=g["max_players"],
                    options_json=json.dumps(g["options"]),
                )
                for g in games
            ],
            bot_levels=list(levels),
            bot_level_details_json=bot_level_details_json(tuple(g["name"] for g in games)),
        )

    @_handler("CreateGame")
    async def CreateGame(self, request, context):
        return _created(await self.service.creator.create(_create_args(request), anonymous=True))

    @_handler("GetGame")
    async def GetGame(self, request, context):
        view = _view(await self.service.get_game(request.game_id, request.token))
        if self.gate is not None:  # the public port shows a bot account's seat as a bot's, as REST does
            await self.gate.show_bot_accounts(view)
        return view

    @_handler("ListLegalActions")
    async def ListLegalActions(self, request, context):
        version, seat, actions = await self.service.legal_actions(request.game_id, request.token)
        return pb2.ListLegalActionsResponse(
            version=version, seat=seat, actions_json=[dumps(a) for a in actions]
        )

    @_handler("SubmitAction")
    async def SubmitAction(self, request, context):
        r = await self.service.moves.submit(
            request.game_id, request.token, request.action_json, request.expected_version, request.idempotency_key
        )
        return _submitted(r)

    @_handler("TakeBack")
    async def TakeBack(self, request, context):
        r = await self.service.moves.take_back(
            request.game_id, request.token, request.expected_version, request.idempotency_key
        )
        return _submitted(r)

    async def WatchGame(self, request, context):
        slot = hold = None
        try:
            if self.gate is not None:
                asked = request.token
                request, hold = await self.gate.authorize_stream(context, request)
                slot = await self.gate.open_stream(context, asked, request.token)
            stream = await self.service.watcher.watch(
                request.game_id,
                request.token,
                request.after_version if request.HasField("after_version") else None,
                gone=context.done,
                on_gone=lambda wake: context.add_done_callback(lambda _context: wake()),
            )
            if self.gate is not None and hold is not None:  # opened with an API key: it ends with the key
                stream = self.gate.until_revoked(stream, hold)
            async for item in stream:
                yield pb2.WatchEvent(
                    version=item.version,
                    kind=item.kind,
                    actor=item.actor,
                    events_json=[dumps(e) for e in item.events],
                    status=item.status,
                    to_act=item.to_act,
                    scores=item.scores,
                    winners=item.winners,
                )
        except errors.ServiceError as exc:
            await _fail(context, exc)
        except Ended as exc:  # opened with an API key that stopped working (or could not be checked)
            await _fail(context, errors.unauthenticated(str(exc)) if exc.code == "unauthenticated"
                        else errors.unavailable(str(exc)))
        except (asyncio.CancelledError, grpc.aio.AbortError):
            raise
        except redis_errors.RedisError:
            log.exception("WatchGame: Redis unavailable")
            await context.abort(grpc.StatusCode.UNAVAILABLE, REDIS_DETAILS)
        except Exception:
            log.exception("WatchGame failed")
            await context.abort(grpc.StatusCode.INTERNAL, INTERNAL_DETAILS)
        finally:
            if slot is not None:
                slot.release()

    @_handler("ListGames")
    async def ListGames(self, request, context):
        metas = await self.service.list_games(request.status, request.game, request.limit)
        games = [_summary(m) for m in metas]
        if self.gate is not None:  # seats as GetGame shows them: a bot account's is a bot's
            for summary in games:
                await self.gate.show_bot_accounts(summary)
        return pb2.ListGamesResponse(games=games)

    @_handler("Resign")
    async def Resign(self, request, context):
        version = await self.service.endings.resign(request.game_id, request.token, request.bot_level)
        return pb2.ResignResponse(version=version)

    @_handler("Abort")
    async def Abort(self, request, context):
        return pb2.AbortResponse(version=await self.service.endings.abort(request.game_id, request.token))

    @_handler("RotateToken")
    async def RotateToken(self, request, context):
        seat, token = await self.service.rotate_token(request.game_id, request.token)
        if self.gate is not None:  # the key's account keeps the seat; rotated with the seat token, nobody else does
            await self.gate.rotated(context, request.game_id, seat, token)
        return pb2.RotateTokenResponse(seat=seat, token=token)

    @_handler("GetLog")
    async def GetLog(self, request, context):
        meta, entries = await self.service.get_log(request.game_id)
        return pb2.GetLogResponse(
            game=meta.game,
            players=meta.players,
            options_json=json.dumps(meta.options),
            seed=meta.seed,
            entries_json=[dumps(e) for e in entries],
            final_digest=meta.digest,
            version=meta.version,
            scores=meta.scores,
            winners=meta.winners,
            status=meta.status,
        )


UNAUTHENTICATED_ADMIN = json.dumps({
    "reason": "unauthenticated",
    "message": "GameAdmin is internal: it needs the service credential (authorization: Bearer <SERVICE_SECRET>)",
    "rule": None,
})


def _internal(fn: Callable) -> Callable:
    """Refuse a GameAdmin call without the service credential, before anything else is read."""

    @functools.wraps(fn)
    async def run(self, request, context):
        if not self.credentials.accepts(context.invocation_metadata()):
            metrics.ADMIN_REFUSED.inc()
            await context.abort(grpc.StatusCode.UNAUTHENTICATED, UNAUTHENTICATED_ADMIN)
        return await fn(self, request, context)

    return run


class GameAdminServicer(pb2_grpc.GameAdminServicer):
    """gRPC front of the internal calls: owned and batch creation, bot moves (service credential only)."""

    def __init__(self, service: GameStateService, credentials: ServiceCredentials):
        self.service = service
        self.credentials = credentials

    def _game_label(self, request) -> str:
        """As GameServicer's, looking inside an owned creation's request."""
        inner = request.game if isinstance(request, pb2.OwnedCreateGameRequest) else request
        return GameServicer._game_label(self, inner)

    @_internal
    @_handler("Admin.CreateGame")
    async def CreateGame(self, request, context):
        args = _create_args(request.game, request.owner, request.rated, request.seat_players)
        return _created(await self.service.creator.create(args))

    @_internal
    @_handler("Admin.CreateGames")
    async def CreateGames(self, request, context):
        results = await self.service.creator.create_many(
            [_create_args(r.game, r.owner, r.rated, r.seat_players) for r in request.games]
        )
        out = pb2.CreateGamesResponse()
        for r in results:
            item = out.results.add()
            if isinstance(r, errors.ServiceError):
                item.error.code, item.error.details = r.code.value[0], r.details()
            else:
                item.created.CopyFrom(_created(r))
        return out

    @_internal
    @_handler("Admin.SubmitBotAction")
    async def SubmitBotAction(self, request, context):
        r = await self.service.moves.submit_bot(
            request.game_id, request.seat, request.action_json, request.expected_version, request.idempotency_key
        )
        return _submitted(r)

    @_internal
    @_handler("Admin.GetGameSummaries")
    async def GetGameSummaries(self, request, context):
        metas = await self.service.summaries(list(request.game_ids))
        return pb2.ListGamesResponse(games=[_summary(m) for m in metas])


@dataclass
class Running:
    """A started instance: its server, port, service and background tasks."""

    server: grpc.aio.Server
    port: int
    service: GameStateService
    redis: aioredis.Redis
    health: health.aio.HealthServicer
    tasks: list[asyncio.Task]
    archive: ArchiveRepository | None = None
    #: the internal listener (GameAdmin) and its port
    admin_server: grpc.aio.Server | None = None
    admin_port: int = 0
    #: the public listener's callers and limits (its account store is closed with the instance)
    gate: PublicGate | None = None

    async def stop(self, grace: float | None) -> None:
        """Graceful shutdown: refuse new calls, let in-flight unary calls finish, end watches."""
        await self.health.enter_graceful_shutdown()
        self.service.stopping.set()  # background loops and watch streams end at their next check
        if self.tasks:
            _done, pending = await asyncio.wait(self.tasks, timeout=5.0)
            for task in pending:
                task.cancel()
        await asyncio.gather(*(server.stop(grace) for server in (self.server, self.admin_server) if server))
        await self.service.fanout.stop()
        if self.gate is not None:
            await self.gate.close()
        await self.redis.aclose()
        if self.archive is not None:
            await self.archive.close()


def build_service(
    settings: Settings,
    redis: aioredis.Redis,
    registry: Registry | None = None,
    dispatcher: Dispatcher | None = None,
) -> GameStateService:
    registry = registry or Registry()
    if dispatcher is None:
        if settings.dispatch_bots:
            from services.common.celery_app import make_celery

            dispatcher = CeleryDispatcher(make_celery(settings), settings.bot_queue,
                                          follow_ups_first=settings.bot_follow_ups_first)
        else:
            dispatcher = NoDispatcher()
    store = Store(
        redis,
        settings.key_prefix,
        registry.get,
        snapshot_every=settings.snapshot_every,
        idempotency_ttl_s=settings.idempotency_ttl_s,
        cache_size=settings.cache_size,
        token_ttl_after_end_ms=round(settings.seat_token_ttl_after_end_s * 1000),
        wait_replicas=settings.redis_wait_replicas,
        wait_timeout_ms=settings.redis_wait_timeout_ms,
        outbox_maxlen=settings.outbox_maxlen,
    )
    quotas = Quotas(settings.quota_active_games, settings.quota_bot_seats, settings.quota_creations_per_hour)
    return GameStateService(
        store,
        registry,
        dispatcher,
        quotas=QuotaBook(redis, store.keys, quotas),
        allow_anonymous_create=settings.allow_anonymous_create,
        max_turn_seconds=settings.max_turn_seconds,
        watch_block_ms=settings.watch_block_ms,
        heartbeat_s=settings.heartbeat_s,
        bot_redispatch_s=settings.bot_redispatch_s,
        token_check_ms=settings.watch_token_check_ms,
        zombie_bot_level=settings.zombie_bot_level,
        abandon_after_timeouts=settings.abandon_after_timeouts,
        inactive_game_days=settings.inactive_game_days,
        cached_read_ms=settings.cached_read_ms,
    )


class PortTaken(RuntimeError):
    """The service cannot listen where it was told to (another process holds the port)."""


async def start(
    settings: Settings,
    registry: Registry | None = None,
    dispatcher: Dispatcher | None = None,
    *,
    sweeper: bool = True,
) -> Running:
    """Start one instance: the public listener on settings.grpc_addr, the internal one (GameAdmin) on
    settings.admin_grpc_addr (port 0 picks a free port)."""
    from services.gamestate.health_monitor import follow_redis
    from services.gamestate.sweeper import run_sweeper

    credentials = settings.credentials()  # no secret, no service: CredentialError before anything starts
    redis = async_redis(settings.redis_url, cluster=settings.redis_cluster, decode_responses=True,
                        max_connections=REDIS_MAX_CONNECTIONS, client_name=settings.redis_client_name or None)
    await redis.ping()
    service = build_service(settings, redis, registry, dispatcher)
    archive, archiver = await _open_archive(settings, service) if settings.archive_url else (None, None)
    options = [
        ("grpc.max_receive_message_length", settings.max_message_bytes),
        ("grpc.max_send_message_length", settings.max_message_bytes),
        # gRPC turns SO_REUSEPORT on by default: a second service (an orphan's successor) would then bind
        # the same port without an error and share its connections. Off, a taken port fails here.
        ("grpc.so_reuseport", 0),
        # clients ping every 10 s to find dead connections (services/gamestate/client.py): allowed
        ("grpc.keepalive_permit_without_calls", 1),
        ("grpc.http2.min_ping_interval_without_data_ms", 5_000),
    ]
    health_servicer = health.aio.HealthServicer()
    # the public listener: GameService with the per-caller limits, health, and reflection of exactly these
    server = grpc.aio.server(options=options)
    gate = PublicGate(redis, service.store.keys, settings, await _account_store(settings, redis, archive))
    pb2_grpc.add_GameServiceServicer_to_server(GameServicer(service, gate), server)
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    public_reflection(server)
    port = _listen(server, settings.grpc_addr, "gRPC")
    # the internal listener: GameAdmin (service credential) and GameService for the platform's own callers
    admin_server = grpc.aio.server(options=options)
    pb2_grpc.add_GameServiceServicer_to_server(GameServicer(service), admin_server)
    pb2_grpc.add_GameAdminServicer_to_server(GameAdminServicer(service, credentials), admin_server)
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, admin_server)
    admin_port = _listen(admin_server, settings.admin_grpc_addr, "internal gRPC, ADMIN_GRPC_ADDR")
    await admin_server.start()
    await server.start()
    for name in ("", SERVICE_NAME, LIVENESS):
        await health_servicer.set(name, health_pb2.HealthCheckResponse.SERVING)
    tasks = [
        asyncio.create_task(
            follow_redis(health_servicer, ("", SERVICE_NAME), redis, settings.health_check_s, service.stopping)
        )
    ]
    if sweeper:
        tasks.append(asyncio.create_task(run_sweeper(service, settings.sweep_interval_s, service.stopping)))
    if archiver is not None:
        tasks.append(asyncio.create_task(run_archiver(archiver, settings.archive_interval_s, service.stopping)))
    return Running(server, port, service, redis, health_servicer, tasks, archive, admin_server, admin_port, gate)


async def _account_store(settings: Settings, redis: aioredis.Redis,
                         archive: ArchiveRepository | None) -> AccountStore | None:
    """The accounts the public port verifies API keys against (docs/decisions/accounts.md): ACCOUNTS_URL's SQL (else the
    archive's own engine) and ACCOUNTS_REDIS_URL (else the service's Redis) under ACCOUNTS_KEY_PREFIX; None (API keys
    refused there) without SQL or without the service secret that opens the accounts' sealed seat tokens."""
    from services.accounts.keys import Keys as AccountKeys
    from services.accounts.repository import AccountRepository
    from services.archive.db import make_engine

    url = settings.accounts_url or settings.archive_url
    if not url or not settings.service_secret:
        return None
    closers: list = []
    if archive is not None and url == settings.archive_url:
        engine = archive.engine
    else:
        engine = make_engine(url)
        closers.append(engine.dispose)
    accounts_redis = redis
    if settings.accounts_redis_url and settings.accounts_redis_url != settings.redis_url:
        accounts_redis = async_redis(settings.accounts_redis_url, cluster=settings.redis_cluster,
                                     decode_responses=True, client_name=settings.redis_client_name or None)
        closers.append(accounts_redis.aclose)
    return AccountStore(accounts_redis, AccountKeys(settings.accounts_key_prefix), AccountRepository(engine),
                        settings.service_secret, closers)


def _listen(server: grpc.aio.Server, addr: str, what: str) -> int:
    """Bind `addr` (port 0: any free port); PortTaken if it cannot."""
    try:
        port = server.add_insecure_port(addr)
    except RuntimeError:
        port = 0
    if not port:
        raise PortTaken(f"cannot listen on {addr} ({what}): the address is in use or unavailable")
    return port


def public_reflection(server: grpc.aio.Server) -> None:
    """Reflection that lists and describes the public services only: GameAdmin is dropped from the proto file it
    describes (it shares game_service.proto with GameService), so the public port does not even name it."""
    pool = descriptor_pool.DescriptorPool()
    for module in (health_pb2, reflection_pb2):
        pool.Add(descriptor_pb2.FileDescriptorProto.FromString(module.DESCRIPTOR.serialized_pb))
    public = descriptor_pb2.FileDescriptorProto.FromString(pb2.DESCRIPTOR.serialized_pb)
    kept = [s for s in public.service if f"{public.package}.{s.name}" == SERVICE_NAME]
    del public.service[:]
    public.service.extend(kept)
    pool.Add(public)
    names = (SERVICE_NAME, health_pb2.DESCRIPTOR.services_by_name["Health"].full_name, reflection.SERVICE_NAME)
    reflection.enable_server_reflection(names, server, pool)


async def _open_archive(settings: Settings, service: GameStateService) -> tuple[ArchiveRepository, Archiver | None]:
    """Migrate the archive and route reads of games gone from Redis to it; the archiver, unless this instance
    does not archive (ARCHIVE_INTERVAL_S=0)."""
    from services.archive.db import make_engine
    from services.archive.migrate import upgrade
    from services.gamestate.archive_reads import ArchivedReads

    engine = make_engine(settings.archive_url or "")
    await upgrade(engine)
    repo = ArchiveRepository(engine)
    service.lookup.archive = ArchivedReads(repo, service.registry.get)
    if settings.archive_interval_s <= 0:
        return repo, None
    store = service.store
    return repo, Archiver(
        store.redis, store.keys, repo, service.registry.get, after_s=settings.archive_after_s,
        batch=settings.archive_batch, lease_s=settings.archive_lease_s, retry_s=settings.archive_retry_s,
        on_dropped=store.forget,
    )
