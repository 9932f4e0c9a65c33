"""Challenges: one account invites another to a game; accepting creates it and seats both."""

from __future__ import annotations

import re
import time
from typing import Annotated

from fastapi import APIRouter, Depends, Query

from services.gateway.auth import CurrentPlayer
from services.gateway.context import Context, Ctx
from services.gateway.domain import challenge_flow, clock_floor
from services.gateway.domain.challenges import Challenge, TooManyChallenges
from services.gateway.domain.tables import check_table
from services.gateway.http.errors import ERROR_RESPONSES, ApiError
from services.gateway.models.accounts import (
    ChallengeAccepted,
    ChallengeCreated,
    ChallengeList,
    ChallengeOut,
    Decline,
    NewChallenge,
)

router = APIRouter(prefix="/v1", responses=ERROR_RESPONSES, tags=["challenges"])

_ID = re.compile(r"^[0-9a-f]{32}$")


async def _mine(challenge_id: str, player_id: CurrentPlayer, c: Ctx) -> tuple[str, Challenge]:
    """(the caller, challenge `challenge_id`): 404 unless the caller sent or received it."""
    ch = await c.challenges.get(challenge_id) if _ID.match(challenge_id) else None
    if ch is None or player_id not in (ch.challenger, ch.to):
        raise ApiError(404, "no such challenge")
    return player_id, ch


Mine = Annotated[tuple[str, Challenge], Depends(_mine)]


@router.post(
    "/challenges", status_code=201, response_model=ChallengeCreated, summary="Challenge another player",
    description="Bearer: your API key. The challenged player sees a `challenge` event on its account stream and "
    "accepts or declines; it expires after `GATEWAY_CHALLENGE_TTL_S` (24 h). Accepting creates the game, owned by "
    "the challenger (its quotas apply), with random seats; extra seats beyond two are played by bots. A rated "
    "challenge's game updates both ratings when it ends. An account may have at most "
    "`GATEWAY_CHALLENGES_PER_SENDER` (20) pending challenges sent and `GATEWAY_CHALLENGES_PER_RECIPIENT` (50) "
    "received (429 `too_many_challenges`).",
)
async def create_challenge(body: NewChallenge, player_id: CurrentPlayer, c: Ctx) -> ChallengeCreated:
    if body.to == player_id:
        raise ApiError(422, "a player cannot challenge itself")
    if await c.players.name(body.to) is None:
        raise ApiError(404, "no such player to challenge")
    entry = await c.catalog_entry(body.game)
    check_table(entry, body.players, body.options)
    options = {k: body.options.get(k, spec["default"]) for k, spec in entry["options"].items()}
    tc = body.time_control.model_dump() if body.time_control else None
    clock_floor.check(c.settings.min_seconds_per_decision, tc)
    try:
        ch = await c.challenges.create(player_id, body.to, entry["name"], body.players, options, tc, body.rated)
    except TooManyChallenges as exc:
        who = "you have sent" if exc.side == "sender" else "this player has been sent"
        raise ApiError(429, f"{who} {exc.limit} pending challenges, the most allowed; wait for one to be accepted, "
                            "declined, cancelled or to expire", "too_many_challenges") from None
    await challenge_flow.announce(c, ch)
    return ChallengeCreated(challenge_id=ch.challenge_id, expires_at=ch.expires_ms)


@router.get("/challenges", response_model=ChallengeList, summary="My challenges, incoming and outgoing")
async def list_challenges(
    player_id: CurrentPlayer, c: Ctx,
    status: str | None = Query(None, pattern="^(pending|accepted|declined|cancelled|expired)$"),
) -> ChallengeList:
    now = int(time.time() * 1000)
    shown = [ChallengeOut(**ch.to_json(player_id, now)) for ch in await c.challenges.of(player_id)]
    return ChallengeList(challenges=[ch for ch in shown if status is None or ch.status == status])


@router.get("/challenges/{challenge_id}", response_model=ChallengeOut, summary="One of my challenges")
async def get_challenge(mine: Mine, c: Ctx) -> ChallengeOut:
    player_id, ch = mine
    return ChallengeOut(**ch.to_json(player_id))


@router.post(
    "/challenges/{challenge_id}/accept", response_model=ChallengeAccepted, summary="Accept a challenge sent to me",
    description="Creates the game; the answer holds your seat token, shown only here. The challenger gets its "
    "own through its account stream (`game_start`, delivered once). 409 `challenge_<status>` once it is no "
    "longer pending.",
)
async def accept_challenge(mine: Mine, c: Ctx) -> ChallengeAccepted:
    player_id, ch = mine
    if player_id != ch.to:
        raise ApiError(403, "only the challenged player can accept")
    game_id, seat, token = await challenge_flow.accept(c, ch)
    return ChallengeAccepted(game_id=game_id, seat=seat, token=token)


@router.post("/challenges/{challenge_id}/decline", response_model=ChallengeOut,
             summary="Decline a challenge sent to me",
             description="Optional body `{\"reason\": ...}` (default `generic`): kept with the challenge (`reason` in "
             "`GET /v1/challenges/{id}`) and sent to both players in the `challenge_closed` event.")
async def decline_challenge(mine: Mine, c: Ctx, body: Decline | None = None) -> ChallengeOut:
    player_id, ch = mine
    if player_id != ch.to:
        raise ApiError(403, "only the challenged player can decline")
    return await _close(c, ch, player_id, "declined", (body or Decline()).reason)


@router.delete("/challenges/{challenge_id}", response_model=ChallengeOut, summary="Cancel a challenge I sent")
async def cancel_challenge(mine: Mine, c: Ctx) -> ChallengeOut:
    player_id, ch = mine
    if player_id != ch.challenger:
        raise ApiError(403, "only the challenger can cancel")
    return await _close(c, ch, player_id, "cancelled")


async def _close(c: Context, ch: Challenge, viewer: str, status: str, reason: str | None = None) -> ChallengeOut:
    moved = await c.challenges.move(ch.challenge_id, "pending", status)
    if moved == "expired":
        await challenge_flow.closed(c, ch, "expired")
    if moved != "ok":
        raise challenge_flow.refused(ch.challenge_id, moved)
    if reason is not None:
        await c.challenges.set_reason(ch.challenge_id, reason)
    await challenge_flow.closed(c, ch, status, reason)
    after = await c.challenges.get(ch.challenge_id)
    return ChallengeOut(**(after or ch).to_json(viewer))
