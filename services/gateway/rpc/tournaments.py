"""skyboard.v1.TournamentService: the REST tournament operations (services/gateway/domain/tournaments.py) over gRPC.

Each request is read into REST's request model (so a field validates as on REST), the one implementation in the
domain module serves it, and its answer (REST's response model) is written into the proto message. Nothing here
decides anything: only the two shapes meet."""

from __future__ import annotations

import json
import time
from collections.abc import AsyncIterator
from typing import Any

import grpc
from pydantic import TypeAdapter
from redis.exceptions import RedisError

from proto.skyboard.v1 import game_service_pb2 as game_pb2
from proto.skyboard.v1 import tournament_service_pb2 as pb2
from proto.skyboard.v1 import tournament_service_pb2_grpc as pb2_grpc
from services.common.stream_slots import TooManyStreams
from services.gamestate.public_port import peer_address
from services.gateway.domain import tournaments as ops
from services.gateway.models.games import TimeControl
from services.gateway.models.tournaments import Entry, NewTournament, TournamentOut
from services.gateway.rpc.calls import Calls, Refusal, details, refusal, unary

SERVICE_NAME = pb2.DESCRIPTOR.services_by_name["TournamentService"].full_name
_CLOCK = TypeAdapter(TimeControl)


def _json_object(text: str, field: str) -> dict[str, Any]:
    """A JSON object field of a request ("" = {}); INVALID_ARGUMENT `invalid_request` otherwise."""
    if not text:
        return {}
    try:
        value = json.loads(text)
    except ValueError:
        value = None
    if not isinstance(value, dict):
        raise Refusal(grpc.StatusCode.INVALID_ARGUMENT, details("invalid_request", f"{field} must be a JSON object"))
    return value


def _clock_in(tc: game_pb2.TimeControl) -> dict[str, Any]:
    if tc.kind == "correspondence":
        return {"kind": tc.kind, "days_per_decision": tc.days_per_decision}
    return {"kind": tc.kind, "seconds_per_decision": tc.seconds_per_decision, "reserve_seconds": tc.reserve_seconds}


def new_tournament(request: pb2.CreateTournamentRequest) -> NewTournament:
    """REST's creation body from the request; proto3 zeros stand for REST's defaults where REST has one."""
    body: dict[str, Any] = {
        "name": request.name, "game": request.game, "players": request.players, "rounds": request.rounds or None,
        "options": _json_object(request.options_json, "options_json"), "rated": request.rated,
        "bots_allowed": request.bots_allowed, "starts_at": request.starts_at,
    }
    if request.kind:
        body["kind"] = request.kind
    if request.byes:
        body["byes"] = request.byes
    if request.points:
        body["points"] = list(request.points)
    if request.HasField("bye_points"):
        body["bye_points"] = request.bye_points
    if request.HasField("time_control"):
        body["time_control"] = _clock_in(request.time_control)
    if request.max_players:
        body["max_players"] = request.max_players
    if request.HasField("ends_at"):
        body["ends_at"] = request.ends_at
    if request.streak_after:
        body["streak_after"] = request.streak_after
    if request.streak_factor:
        body["streak_factor"] = request.streak_factor
    if request.HasField("bots_after_s"):
        body["bots_after_s"] = request.bots_after_s
    return NewTournament.model_validate(body)


def _clock_out(tc: Any) -> game_pb2.TimeControl | None:
    if tc is None:
        return None
    return game_pb2.TimeControl(**tc.model_dump())


def tournament(t: TournamentOut) -> pb2.Tournament:
    return pb2.Tournament(
        tournament_id=t.tournament_id, kind=t.kind, name=t.name, game=t.game, organiser=t.organiser,
        status=t.status, players=t.players, rounds=t.rounds, round=t.round, byes=t.byes, points=t.points,
        bye_points=t.bye_points, options_json=json.dumps(t.options, separators=(",", ":")),
        time_control=_clock_out(t.time_control), rated=t.rated, bots_allowed=t.bots_allowed,
        max_players=t.max_players, entrants=t.entrants, created_ms=t.created_ms, starts_at=t.starts_at,
        ends_at=t.ends_at or 0, streak_after=t.streak_after or 0, streak_factor=t.streak_factor or 0,
        bots_after_s=t.bots_after_s)


def _entry(e: Entry) -> pb2.TournamentEntry:
    return pb2.TournamentEntry(tournament_id=e.tournament_id, player_id=e.player_id, entered=e.entered,
                               resigned=e.resigned)


class TournamentServicer(pb2_grpc.TournamentServiceServicer):
    def __init__(self, calls: Calls):
        self.calls = calls
        self.ctx = calls.ctx

    @unary("CreateTournament")
    async def CreateTournament(self, request, context):
        player_id = await self.calls.player(context)
        return pb2.CreateTournamentResponse(tournament_id=await ops.create(self.ctx, player_id,
                                                                           new_tournament(request)))

    @unary("ListTournaments")
    async def ListTournaments(self, request, context):
        found = await ops.listing(self.ctx, request.status or None, request.limit or ops.LIST_DEFAULT)
        return pb2.ListTournamentsResponse(tournaments=[tournament(t) for t in found])

    @unary("GetTournament")
    async def GetTournament(self, request, context):
        return tournament(await ops.describe(self.ctx, await ops.find(self.ctx, request.tournament_id)))

    @unary("GetStandings")
    async def GetStandings(self, request, context):
        s = await ops.standings(self.ctx, await ops.find(self.ctx, request.tournament_id))
        return pb2.TournamentStandings(
            tournament_id=s.tournament_id, status=s.status, round=s.round,
            standings=[pb2.TournamentStanding(**row.model_dump()) for row in s.standings],
            rounds=[pb2.TournamentRound(round=r.round, byes=r.byes, tables=[
                pb2.TournamentTable(number=t.number, players=[p or "" for p in t.players], game_id=t.game_id or "",
                                    places=t.places or [], ended=t.ended) for t in r.tables]) for r in s.rounds])

    @unary("JoinTournament")
    async def JoinTournament(self, request, context):
        event = await ops.find(self.ctx, request.tournament_id)  # REST's order: an unknown event first
        return _entry(await ops.join(self.ctx, event, await self.calls.player(context)))

    @unary("WithdrawTournament")
    async def WithdrawTournament(self, request, context):
        event = await ops.find(self.ctx, request.tournament_id)
        return _entry(await ops.withdraw(self.ctx, event, await self.calls.player(context)))

    async def WatchTournament(self, request, context) -> AsyncIterator[pb2.TournamentEvent]:
        """The feed as the SSE route relays it; bounded per address as the SSE streams are (GATEWAY_STREAM_LIMIT_IP,
        counted together with them). A storage outage ends it with UNAVAILABLE: resume after the last event_id."""
        metrics = self.ctx.metrics
        start = time.perf_counter()
        code = grpc.StatusCode.OK
        slot = None
        try:
            try:
                await self.calls.admit(context)
                event = await ops.find(self.ctx, request.tournament_id)
                after = ops.resume_after(request.after_event_id, "after_event_id")
                try:
                    slot = self.ctx.streams.acquire(peer_address(context.peer()), None)
                except TooManyStreams as exc:
                    raise Refusal(grpc.StatusCode.RESOURCE_EXHAUSTED, details("too_many_streams", exc.message)) \
                        from None
                metrics.rpc_streams.inc()

                async def gone() -> bool:
                    return context.done()

                async for item in ops.feed(self.ctx, event.tournament_id, after, gone):
                    yield pb2.TournamentEvent(event_id=item.id, kind=item.kind, data_json=item.data)
            except RedisError:
                raise Refusal(grpc.StatusCode.UNAVAILABLE, details(
                    "unavailable", "storage is unavailable; resume with after_event_id")) from None
        except Exception as exc:
            answer = refusal(exc)
            code = answer.code
            await context.abort(answer.code, answer.details)
        finally:
            if slot is not None:
                slot.release()
                metrics.rpc_streams.dec()
            metrics.rpc_latency.labels("WatchTournament").observe(time.perf_counter() - start)
            metrics.rpc_calls.labels("WatchTournament", code.name).inc()
