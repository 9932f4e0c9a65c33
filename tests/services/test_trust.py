"""Trust at the game-state service: the internal GameAdmin surface and its service credential, no forgeable
bot credential, no default secret, anonymous creation only where allowed, per-player quotas, and bot
randomness that opponents cannot recompute."""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import random
import time
from concurrent.futures import ThreadPoolExecutor

import grpc
import pytest

from services.common.credentials import CredentialError, ServiceCredentials, call_metadata
from services.gamestate.keys import Keys
from services.gamestate.server import start
from services.workers.move import decision_seed
from tests.services.helpers import expect_error, play_random

C = grpc.StatusCode
PUBLISHED_DEV_SECRET = "skyboard-dev-bot-secret-change-me"


def _forged_bot_token(secret: str, game_id: str, seat: int) -> str:
    """A bot-seat credential as a forger would derive it: HMAC(secret, "game:seat"), mintable by anyone holding a
    leaked or default secret."""
    mac = hmac.new(secret.encode(), f"{game_id}:{seat}".encode(), hashlib.sha256).hexdigest()
    return f"sbb_{game_id}:{seat}:{mac}"


def test_no_service_starts_without_a_secret_or_with_a_published_one(loop_thread, settings, registry):
    for secret in (None, "", PUBLISHED_DEV_SECRET, "short-secret"):
        with pytest.raises(CredentialError):
            loop_thread.run(start(settings.model_copy(update={"service_secret": secret}), registry, sweeper=False))


def test_the_public_create_game_is_refused_unless_anonymous_creation_is_allowed(make_instance, make_client):
    client = make_client(make_instance(allow_anonymous_create=False))
    err = expect_error(C.PERMISSION_DENIED, client.create_game, "toybids", 2, seed=1)
    assert "API key" in err.message
    assert client.list_games() == [], "nothing was created"


def test_game_admin_needs_the_service_credential(client, admin, settings):
    game = admin.create_game("toybids", 2, seed=3, bots={1: "random"})
    for wrong in (client.admin("x" * 40), client.admin(PUBLISHED_DEV_SECRET)):
        expect_error(C.UNAUTHENTICATED, wrong.create_game, "toybids", 2)
        expect_error(C.UNAUTHENTICATED, wrong.submit_bot, game.game_id, 1, {"type": "bid", "card": 1}, 0)
    # no metadata at all
    from services.gamestate.pb import pb2

    with pytest.raises(grpc.RpcError) as caught:
        admin.stub.CreateGame(pb2.OwnedCreateGameRequest(game=pb2.CreateGameRequest(game="toybids", players=2)))
    assert caught.value.code() == C.UNAUTHENTICATED
    assert {g.game_id for g in client.list_games()} == {game.game_id}


def test_no_client_credential_speaks_for_a_bot_seat(client, admin, settings):
    """A bot seat has no token: a secret-derived credential is refused whatever secret made it, for reading the
    bot's hidden hand and for playing its moves."""
    game = admin.create_game("toybids", 2, seed=4, bots={1: "random"})
    gid = game.game_id
    for secret in (settings.service_secret, PUBLISHED_DEV_SECRET):
        forged = _forged_bot_token(secret, gid, 1)
        expect_error(C.UNAUTHENTICATED, client.get_game, gid, forged)
        expect_error(C.UNAUTHENTICATED, client.legal_actions, gid, forged)
        expect_error(C.UNAUTHENTICATED, client.submit, gid, forged, {"type": "bid", "card": 1}, 0)
        expect_error(C.UNAUTHENTICATED, client.resign, gid, forged, "mcts-hard")
    view = client.get_game(gid)
    assert view.version == 0 and view.bots == {1: "random"}, "nothing changed"


def test_the_previous_secret_is_accepted_only_within_its_rotation_window(make_instance, make_client, settings):
    old, new = settings.service_secret, "rotated-secret-" + "n" * 32
    until = time.time() + 2.0
    inst = make_instance(service_secret=new, service_secret_previous=old, service_secret_previous_until=until)
    client = make_client(inst)
    assert client.admin(new).create_game("toybids", 2).game_id
    assert client.admin(old).create_game("toybids", 2).game_id, "the old secret works during the window"
    time.sleep(max(0.0, until - time.time()) + 0.1)
    expect_error(C.UNAUTHENTICATED, client.admin(old).create_game, "toybids", 2)
    assert client.admin(new).create_game("toybids", 2).game_id


def test_credentials_compare_digests_and_refuse_an_endless_window():
    creds = ServiceCredentials.from_secrets("a" * 32, "b" * 32, previous_until=100.0)
    assert creds.accepts(call_metadata("a" * 32)) and creds.accepts(call_metadata("b" * 32), now=99.0)
    assert not creds.accepts(call_metadata("b" * 32), now=100.0)
    assert not creds.accepts((("authorization", "Basic " + "a" * 32),)) and not creds.accepts(())
    assert "a" * 32 not in repr(creds)
    with pytest.raises(CredentialError):
        ServiceCredentials.from_secrets("a" * 32, "b" * 32)  # a previous secret with no end


def _quota_settings(**quotas) -> dict:
    base = {"quota_active_games": 100, "quota_bot_seats": 100, "quota_creations_per_hour": 1000}
    return {**base, **quotas}


def test_owned_creations_meet_the_active_games_quota_until_a_game_ends(make_instance, make_client, settings):
    client = make_client(make_instance(**_quota_settings(quota_active_games=2)))
    admin = client.admin(settings.service_secret)
    first = admin.create_game("toybids", 2, seed=1, owner="alice")
    admin.create_game("toybids", 2, seed=2, owner="alice")
    err = expect_error(C.RESOURCE_EXHAUSTED, admin.create_game, "toybids", 2, owner="alice")
    assert err.reason == "quota_exceeded" and "2 active games" in err.message
    assert admin.create_game("toybids", 2, owner="bob").game_id, "quotas are per player"
    assert admin.create_game("toybids", 2).game_id, "unowned games (the matchmaker's) have no quota"
    play_random([client], first, 2, random.Random(1))  # alice's first game ends: its slot is free again
    assert client.get_game(first.game_id).status == "finished"
    assert admin.create_game("toybids", 2, owner="alice").game_id


def test_bot_seats_and_creations_per_hour_are_bounded(make_instance, make_client, settings):
    client = make_client(make_instance(**_quota_settings(quota_bot_seats=3, quota_creations_per_hour=4)))
    admin = client.admin(settings.service_secret)
    admin.create_game("toybids", 3, owner="carol", bots={1: "random", 2: "random"})
    err = expect_error(C.RESOURCE_EXHAUSTED, admin.create_game, "toybids", 3, owner="carol",
                       bots={1: "random", 2: "random"})
    assert "bot seats" in err.message
    admin.create_game("toybids", 2, owner="carol", bots={1: "random"})
    admin.create_game("toybids", 2, owner="carol")
    admin.create_game("toybids", 2, owner="carol")
    err = expect_error(C.RESOURCE_EXHAUSTED, admin.create_game, "toybids", 2, owner="carol")
    assert "per hour" in err.message and "restarts in" in err.message


def test_concurrent_creations_never_overshoot_a_quota(make_instance, make_client, settings):
    client = make_client(make_instance(**_quota_settings(quota_active_games=5)))
    admin = client.admin(settings.service_secret)

    def one(i: int) -> bool:
        try:
            admin.create_game("toybids", 2, seed=i, owner="dave")
            return True
        except Exception as exc:
            assert getattr(exc, "reason", None) == "quota_exceeded", exc
            return False

    with ThreadPoolExecutor(16) as pool:
        made = sum(pool.map(one, range(40)))
    assert made == 5


def test_batch_items_meet_their_owners_quotas(make_instance, make_client, settings):
    from services.gamestate.client import Created, GameServiceError, NewGame

    client = make_client(make_instance(**_quota_settings(quota_active_games=1)))
    admin = client.admin(settings.service_secret)
    results = admin.create_games([NewGame("toybids", 2, owner="erin"), NewGame("toybids", 2, owner="erin"),
                                  NewGame("toybids", 2)])
    assert [type(r) for r in results] == [Created, GameServiceError, Created]
    assert results[1].code == C.RESOURCE_EXHAUSTED


def test_a_bad_owner_id_is_invalid(admin):
    expect_error(C.INVALID_ARGUMENT, admin.create_game, "toybids", 2, owner="../x")


def test_each_game_has_a_bot_key_that_no_reply_carries(client, admin, rdb, prefix):
    """The secret that seeds a game's bots lives in its metadata only: no public reply or stream carries it."""
    game = admin.create_game("toybids", 2, seed=7, bots={1: "random"}, options={"rounds": 2})
    other = admin.create_game("toybids", 2, seed=7, bots={1: "random"})
    key = rdb.hget(Keys(prefix).meta(game.game_id), "bot_key")
    other_key = rdb.hget(Keys(prefix).meta(other.game_id), "bot_key")
    assert len(key) == 64 and key != other_key
    gid, token = game.game_id, game.token(0)
    while (view := client.get_game(gid)).status == "active":  # the bot's moves come as a worker's would
        if 0 in view.to_act:
            client.submit(gid, token, client.legal_actions(gid, token).actions[0], view.version)
        else:
            admin.submit_bot(gid, 1, {"type": "bid", "card": _bot_card(rdb, prefix, gid)}, view.version)
    replies = [client.get_game(gid), client.get_game(gid, token), client.list_games(), client.get_log(gid),
               list(client.watch(gid, token)), list(client.watch(gid))]
    assert not any(key in repr(r) for r in replies)


def _bot_card(rdb, prefix: str, gid: str) -> int:
    """A card of the bot seat's hand, read as a worker reads the state (straight from the service's Redis)."""
    from services.workers.loader import load_game_sync
    from tests.services import toygame

    loaded = load_game_sync(rdb, prefix, gid, lambda _name: toygame.GAME)
    return loaded.state.legal_actions(1)[0].to_json()["card"]


def test_the_bot_seed_is_keyed_by_the_games_secret():
    """Opponents know the game id, seat and version; with a seed made of those alone they could replay a bot's
    sealed bid before bidding. The seed must depend on the game's secret bot key."""
    public = int.from_bytes(hashlib.sha256(b"g1:1:5").digest()[:8], "big")
    a, b = "a" * 64, "b" * 64
    assert decision_seed(a, 1, 5) != public
    assert decision_seed(a, 1, 5) == decision_seed(a, 1, 5), "a redelivered task replays the same reasoning"
    assert decision_seed(a, 1, 5) != decision_seed(b, 1, 5)
    assert len({decision_seed(a, s, v) for s in range(4) for v in range(50)}) == 200


async def _admin_calls(target: str, secret: str) -> str:
    from services.gamestate.client import AsyncGameClient

    async with AsyncGameClient(target) as c:
        return (await c.admin(secret).create_game("toybids", 2, owner="frank")).game_id


def test_the_async_admin_client_creates_owned_games(instance, client, settings):
    gid = asyncio.run(_admin_calls(instance.admin_target, settings.service_secret))
    assert client.get_game(gid).players == 2
