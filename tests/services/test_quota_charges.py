"""docs/decisions/abuse-bounds.md ("Matched games have no owner, so quotas do not apply ... Seats the zombie bot plays
are not charged either, and gRPC Resign lets the client choose that bot's level in unrated games. Charge every game and
bot seat to the accounts that hold its seats") and docs/decisions/redis-cluster.md (per-account quota bookkeeping exact
across cluster slots: a game created, finished or abandoned changes its accounts' counts exactly once)."""

from __future__ import annotations

import random
import time

import grpc

from services.gamestate.client import GameServiceError, NewGame
from services.gamestate.keys import Keys
from tests.services.helpers import expect_error, play_random

C = grpc.StatusCode


def _limits(**quotas) -> dict:
    base = {"quota_active_games": 100, "quota_bot_seats": 100, "quota_creations_per_hour": 1000}
    return {**base, **quotas}


def test_a_matched_game_is_charged_to_every_seated_player(make_instance, make_client, settings):
    """A player at the active-games quota gets no more matched games (the matchmaker's CreateGames: no owner,
    seat_players); the refusal names that player, so the matchmaker can fail the ticket instead of requeueing it."""
    client = make_client(make_instance(**_limits(quota_active_games=2)))
    admin = client.admin(settings.service_secret)
    matched = [NewGame("toybids", 2, seed=i, rated=True, seat_players={0: "erin", 1: f"rival{i}"}) for i in range(2)]
    assert all(not isinstance(r, GameServiceError) for r in admin.create_games(matched))
    third, other = admin.create_games([
        NewGame("toybids", 2, seed=3, rated=True, seat_players={0: "erin", 1: "frank"}),
        NewGame("toybids", 2, seed=4, rated=True, seat_players={0: "gina", 1: "hugo"}),
    ])
    assert isinstance(third, GameServiceError) and third.code == C.RESOURCE_EXHAUSTED
    assert third.reason == "quota_exceeded" and third.extra["players"] == ["erin"], third.extra
    assert "player erin" in third.message and "2 active games" in third.message
    assert not isinstance(other, GameServiceError), "the other players' game is created"
    # frank was charged nothing for the refused game: he can still play two games
    for seed in (5, 6):
        assert admin.create_game("toybids", 2, seed=seed, seat_players={0: "frank"}).game_id


def test_an_owned_game_with_seated_players_charges_the_owner_and_each_player(make_instance, make_client, settings,
                                                                             rdb, prefix):
    client = make_client(make_instance(**_limits()))
    admin = client.admin(settings.service_secret)
    game = admin.create_game("toybids", 3, seed=7, owner="ivy", bots={2: "random"}, seat_players={1: "jack"})
    keys = Keys(prefix)
    for account in ("ivy", "jack"):
        assert rdb.hget(keys.owner_games(account), game.game_id).startswith("1:"), "the game and its bot seat"


def test_a_zombie_seat_is_a_bot_seat_of_the_resigning_account(make_instance, make_client, settings):
    """The seat the zombie bot plays once its player resigned is charged to that player's bot seats; a level
    the client names for it needs room in that quota, the platform's own zombie level never does."""
    client = make_client(make_instance(**_limits(quota_bot_seats=1), zombie_bot_level="greedy"))
    admin = client.admin(settings.service_secret)
    game = admin.create_game("toybids", 3, seed=8, owner="kim", seat_players={1: "lee"})
    client.resign(game.game_id, game.token(1), bot_level="random")  # lee had a free bot seat: granted, charged
    err = expect_error(C.RESOURCE_EXHAUSTED, admin.create_game, "toybids", 2, owner="lee", bots={1: "random"})
    assert "bot seats" in err.message, "lee's quota holds the zombie seat"
    assert admin.create_game("toybids", 2, seed=9, owner="kim", bots={1: "random"}).game_id, "not kim's seat"
    # kim now has her bot seat in use: naming a level for her own resigned seat is refused, resigning is not
    err = expect_error(C.RESOURCE_EXHAUSTED, client.resign, game.game_id, game.token(0), "random")
    assert err.reason == "quota_exceeded" and err.extra["players"] == ["kim"]
    assert client.get_game(game.game_id).resigned == [1], "the refused resignation changed nothing"
    client.resign(game.game_id, game.token(0))  # always allowed: with no bot seat left, no zombie (below)
    assert client.get_game(game.game_id).resigned == [0, 1]


def _room(instance, account: str) -> int:
    """Bot seats `account` may still be charged (its quota less what its active games charge it)."""
    return instance.run(instance.running.service.pipeline.quotas.bot_seat_room(account))


def _expire(instance, client, game_id: str, seat: int) -> None:
    """Wait for `seat`'s deadline, then sweep by hand: the clock plays its default decision."""
    due = client.get_game(game_id).deadlines[seat]
    while time.time() * 1000 <= due:
        time.sleep(0.01)
    assert instance.run(instance.running.service.clock.sweep_once()) == 1


def test_a_seat_left_beyond_the_bot_seat_quota_gets_no_zombie_bot(make_instance, make_client, settings):
    """Seats handed to the zombie bot escaped the bot-seat quota: the platform's zombie level was charged but never
    refused, so an account at its quota held one more bot seat per seat it resigned or was abandoned from (41 of
    40). A seat left now gets the zombie bot only while the account whose seat it was has a bot seat to spare; else
    the game's default decision plays it, no bot: leaving stays always possible, the quota always holds. Resigning,
    three timeouts and inactivity alike."""
    instance = make_instance(**_limits(quota_bot_seats=1), zombie_bot_level="greedy", sweeper=False,
                             inactive_game_days=0.3 / 86_400)
    client = make_client(instance)
    admin = client.admin(settings.service_secret)
    spare = admin.create_game("toybids", 3, seed=12, owner="oli")
    client.resign(spare.game_id, spare.token(0))  # oli had a bot seat to spare: the zombie plays his seat
    assert client.get_game(spare.game_id).bots == {0: "greedy"} and _room(instance, "oli") == 0
    full = admin.create_game("toybids", 2, seed=13, owner="nia", bots={1: "random"})  # nia's one bot seat
    client.submit(full.game_id, full.token(0), client.legal_actions(full.game_id, full.token(0)).actions[0], 0)
    assert _room(instance, "nia") == 0
    clocked = admin.create_game("toybids", 3, seed=14, owner="nia", turn_seconds=0.05, options={"rounds": 4})
    for _round in range(3):  # seats 0 and 2 bid, seat 1 times out: abandoned at the third
        for seat in (0, 2):
            token = clocked.token(seat)
            client.submit(clocked.game_id, token, client.legal_actions(clocked.game_id, token).actions[0],
                          client.get_game(clocked.game_id).version)
        _expire(instance, client, clocked.game_id, 1)
    view = client.get_game(clocked.game_id)
    assert (view.abandoned, view.bots) == ([1], {}), "a zombie beyond the quota"
    resigned = admin.create_game("toybids", 3, seed=15, owner="nia")
    client.resign(resigned.game_id, resigned.token(0))
    view = client.get_game(resigned.game_id)
    assert (view.resigned, view.bots) == ([0], {}), "a zombie beyond the quota"
    assert next(iter(client.watch(resigned.game_id, after_version=0))).events == [
        {"type": "seat_resigned", "seat": 0, "bot": None}]
    idle = admin.create_game("toybids", 3, seed=16, owner="nia")
    client.submit(idle.game_id, idle.token(0), client.legal_actions(idle.game_id, idle.token(0)).actions[0], 0)
    time.sleep(0.35)  # seats 1 and 2 stay away past INACTIVE_GAME_DAYS
    assert instance.run(instance.running.service.endings.sweep_inactive()) >= 1
    view = client.get_game(idle.game_id)
    assert (view.abandoned, view.bots) == ([1, 2], {}), "zombies beyond the quota"
    assert _room(instance, "nia") == 0, "nia holds more bot seats than her quota"


def test_an_ending_game_leaves_its_accounts_books_once_and_a_missed_release_is_repaired(
        make_instance, make_client, settings, rdb, prefix):
    """The commit that ends a game releases it from every account's book at once (a release twice changes
    nothing); if the service dies between that commit and the release, the account's next reservation finds the
    game ended and releases it (the repair pass), so the count is never off for good."""
    instance = make_instance(**_limits(quota_active_games=1))
    client = make_client(instance)
    admin = client.admin(settings.service_secret)
    keys = Keys(prefix)
    first = admin.create_game("toybids", 2, seed=10, owner="mia", seat_players={1: "ned"})
    assert rdb.hlen(keys.owner_games("mia")) == 1 and rdb.hlen(keys.owner_games("ned")) == 1
    play_random([client], first, 2, random.Random(10))
    assert rdb.hlen(keys.owner_games("mia")) == 0 and rdb.hlen(keys.owner_games("ned")) == 0, "released at the end"
    quotas = instance.running.service.pipeline.quotas

    async def died_before_release(game_id, accounts) -> None:
        return None

    second = admin.create_game("toybids", 2, seed=11, owner="mia")
    real_release, quotas.release = quotas.release, died_before_release
    try:
        play_random([client], second, 2, random.Random(11))
    finally:
        quotas.release = real_release
    assert rdb.hexists(keys.owner_games("mia"), second.game_id), "the release was lost with the service"
    third = admin.create_game("toybids", 2, seed=12, owner="mia")  # the quota is 1: the repair freed the slot
    assert rdb.hkeys(keys.owner_games("mia")) == [third.game_id]
    instance.run(quotas.release(second.game_id, ["mia"]))  # a late release of the same game: nothing changes
    assert rdb.hkeys(keys.owner_games("mia")) == [third.game_id]
