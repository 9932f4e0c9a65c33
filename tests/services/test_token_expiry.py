"""Seat tokens stop working SEAT_TOKEN_TTL_AFTER_END_S after their game ends, and their entries in the global
token-hash index expire with them; spectator reads of the finished game go on."""

from __future__ import annotations

import random
import time
from typing import Any

import grpc
import pytest

from services.gamestate.keys import Keys, bucket_of
from services.gamestate.service import Registry
from services.gamestate.tokens import token_hash
from tests.services import toygame
from tests.services.helpers import expect_error, play_random

C = grpc.StatusCode
#: long enough that "right after the end they still work" holds on a loaded CI machine (0.5 s did not)
TTL_S = 3.0


class OverAtOnce(toygame.ToyGame):
    """The toy game, but over before anyone moves (a game can be created finished)."""

    name = "toyover"

    def new(self, players: int, seed: int, options: dict[str, Any] | None = None):
        state = super().new(players, seed, options)
        state.round = state.rounds
        return state


@pytest.fixture
def registry() -> Registry:
    return Registry({toygame.GAME.name: toygame.GAME, OverAtOnce.name: OverAtOnce()})


def assert_expired(fn, *args) -> None:
    err = expect_error(C.UNAUTHENTICATED, fn, *args)
    assert "expired" in err.message and "SEAT_TOKEN_TTL_AFTER_END_S" in err.message, err.message


def test_seat_tokens_and_their_index_entries_expire_after_the_game_ends(make_instance, make_client, rdb, prefix):
    client = make_client(make_instance(seat_token_ttl_after_end_s=TTL_S))
    game = client.create_game("toybids", 2, seed=91, options={"rounds": 2})
    gid = game.game_id
    index = [Keys(prefix).token(bucket_of(gid), token_hash(game.token(s))) for s in (0, 1)]
    assert [rdb.pttl(k) for k in index] == [-1, -1], "a live game's tokens never expire"
    play_random([client], game, 2, random.Random(9))
    assert client.get_game(gid, game.token(0)).seat == 0, "right after the end they still work"
    assert all(0 < rdb.pttl(k) <= TTL_S * 1000 for k in index)
    rotated = client.rotate_token(gid, game.token(1))  # a token rotated after the end expires with the others
    index.append(Keys(prefix).token(bucket_of(gid), token_hash(rotated)))
    assert 0 < rdb.pttl(index[-1]) <= TTL_S * 1000
    time.sleep(TTL_S + 0.1)
    assert_expired(client.get_game, gid, game.token(0))
    assert_expired(client.get_game, gid, rotated)
    assert_expired(client.legal_actions, gid, game.token(0))
    assert_expired(lambda: list(client.watch(gid, game.token(0))))
    assert_expired(client.rotate_token, gid, game.token(0))
    assert not any(rdb.exists(k) for k in index), "the index entries are gone"
    spectator = client.get_game(gid)
    assert spectator.status == "finished" and spectator.seat is None
    assert [u.version for u in client.watch(gid)] == list(range(spectator.version + 1))
    assert client.get_log(gid).final_digest == spectator.digest


def test_a_game_created_finished_gives_its_token_index_entries_the_same_expiry(make_instance, make_client, rdb,
                                                                               prefix):
    client = make_client(make_instance(seat_token_ttl_after_end_s=TTL_S))
    game = client.create_game(OverAtOnce.name, 2, seed=92)
    assert client.get_game(game.game_id).status == "finished"
    index = [Keys(prefix).token(bucket_of(game.game_id), token_hash(game.token(s))) for s in (0, 1)]
    assert all(0 < rdb.pttl(k) <= TTL_S * 1000 for k in index)
    assert client.get_game(game.game_id, game.token(1)).seat == 1
    time.sleep(TTL_S + 0.1)
    assert_expired(client.get_game, game.game_id, game.token(1))
    assert not any(rdb.exists(k) for k in index)
