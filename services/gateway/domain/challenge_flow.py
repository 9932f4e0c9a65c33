"""What accepting, declining, cancelling and expiring a challenge does beyond its status: the game, the
account-stream events, the rating registration.

The accepter gets its seat token in the accept answer; the challenger gets its own through its account
stream's `game_start`, sealed in Redis until the one delivery that takes it (`account_events`).
"""

from __future__ import annotations

import random
from collections.abc import Mapping

from services.accounts.seats import register_on
from services.common.slot_transactions import SlotTransactions
from services.gateway.context import Context
from services.gateway.domain.challenges import Challenge, tell_closed
from services.gateway.http.errors import ApiError

_SEATS = random.SystemRandom()

async def closed(c: Context, ch: Challenge, status: str, reason: str | None = None) -> None:
    """Tell both players that the challenge closed (with the decline reason of a declined one)."""
    await tell_closed(c.challenges, c.events, ch, status, reason)


async def announce(c: Context, ch: Challenge) -> None:
    """The new challenge on both players' streams."""
    tx = SlotTransactions(c.redis)
    for pid in (ch.challenger, ch.to):
        c.events.add_to(tx.on(c.keys.account_tag(pid)), pid, "challenge", {"challenge": ch.to_json(pid)})
    await tx.execute()


def refused(challenge_id: str, status: str | None) -> ApiError:
    if status is None:
        return ApiError(404, "no such challenge")
    shown = "pending acceptance" if status == "accepting" else status
    return ApiError(409, f"the challenge is {shown}", f"challenge_{status}")


async def accept(c: Context, ch: Challenge) -> tuple[str, int, str]:
    """Create the game (owned by the challenger, so its quotas apply) and seat both; (game_id, seat, token)."""
    moved = await c.challenges.move(ch.challenge_id, "pending", "accepting")
    if moved != "ok":
        if moved == "expired":
            await closed(c, ch, "expired")
        raise refused(ch.challenge_id, moved)
    seats = list(range(ch.players))
    _SEATS.shuffle(seats)
    challenger_seat, accepter_seat = seats[0], seats[1]
    bots = {s: c.settings.bot_fill_level for s in seats[2:]}
    try:
        created = await c.admin.create_game(
            ch.game, ch.players, options=ch.options, bots=bots, owner=ch.challenger, time_control=ch.time_control,
            rated=ch.rated, seat_players={challenger_seat: ch.challenger, accepter_seat: ch.to},
        )
    except BaseException:  # a refusal (the service's error answers the call) or anything else
        await c.challenges.move(ch.challenge_id, "accepting", "pending")
        raise
    game_id = created.game_id
    tokens = {s.seat: s.token for s in created.seats}
    await c.challenges.set_game(ch.challenge_id, game_id)
    if ch.rated:
        entities = {s: f"bot:{level}" for s, level in bots.items()}
        entities |= {challenger_seat: f"player:{ch.challenger}", accepter_seat: f"player:{ch.to}"}
        await c.ratings.register_game(game_id, ch.game, entities)
    await c.challenges.move(ch.challenge_id, "accepting", "accepted")
    tx = SlotTransactions(c.redis)  # the sealed token and the game_start that delivers it: one account, one MULTI
    mine, theirs = tx.on(c.keys.account_tag(ch.challenger)), tx.on(c.keys.account_tag(ch.to))
    c.events.hand_off(mine, ch.challenger, game_id, tokens[challenger_seat])
    c.events.add_to(mine, ch.challenger, "game_start", {
        "game_id": game_id, "game": ch.game, "seat": challenger_seat, "challenge_id": ch.challenge_id,
        "token_pending": True})
    c.events.add_to(theirs, ch.to, "game_start", {
        "game_id": game_id, "game": ch.game, "seat": accepter_seat, "challenge_id": ch.challenge_id,
        "token": None, "token_delivered": True, "note": "the seat token was in the accept answer"})
    for pid in (ch.challenger, ch.to):
        c.events.add_to(tx.on(c.keys.account_tag(pid)), pid, "challenge_closed",
                        {"challenge_id": ch.challenge_id, "status": "accepted", "reason": None})
    await tx.execute()
    await seat_game(c, game_id, ch.game, {challenger_seat: ch.challenger, accepter_seat: ch.to}, tokens)
    return game_id, accepter_seat, tokens[accepter_seat]


async def seat_game(c: Context, game_id: str, game: str, seats: Mapping[int, str], tokens: Mapping[int, str],
                    announce: str | None = None) -> None:
    """Seat the accounts in the new game (`accounts.seats`, keeping each seat's token sealed so the account's API
    key acts for it). With `announce` (the `note` saying where the seat
    token went), a `game_start` per seat on its account's stream in the same transaction as its account's seat."""
    tx = SlotTransactions(c.redis)
    register_on(tx, c.keys, c.settings.account_events_keep_s, game_id, game, seats, tokens,
                c.settings.service_secret or "")
    if announce is not None:
        for seat, pid in sorted(seats.items()):
            c.events.add_to(tx.on(c.keys.account_tag(pid)), pid, "game_start", {
                "game_id": game_id, "game": game, "seat": seat, "token": None, "token_delivered": True,
                "note": announce})
    await tx.execute()
