"""The SDK against the real stack (real engines, game-state service, gateway, Redis): accounts and keys, whole
games with their streams (sync and async), typed refusals, idempotent submissions, leaving a game, challenges,
and real 429s waited out as Retry-After says."""

from __future__ import annotations

import asyncio
import random
import threading
import time

import pytest
from skyboard_client import (
    AsyncClient,
    Client,
    Conflict,
    GameOver,
    InvalidRequest,
    RateLimited,
    RetryPolicy,
    StaleVersion,
    Unauthenticated,
)

from tests.rate_windows import HOUR


def play_out(sky: Client, game_id: str, tokens: dict[int, str], rng: random.Random) -> int:
    """Random legal moves for every seat until the game ends; returns the final version."""
    game = sky.game(game_id)
    while game.status == "active":
        seat = rng.choice(game.to_act)
        legal = sky.legal_actions(game_id, tokens[seat])
        done = sky.submit(game_id, tokens[seat], rng.choice(legal.actions), legal.version)
        assert done.version == legal.version + 1 and not done.replayed
        game = sky.game(game_id)
    return game.version


def test_accounts_keys_and_profiles(sdk_gateway) -> None:
    with Client(sdk_gateway.url) as sky:
        created = sky.create_player("sdk-bot", kind="bot")
        assert sky.api_key == created.api_key and created.api_key.startswith("sbk_bot_")
        me = sky.me()
        assert (me.player_id, me.name, me.kind, me.ratings) == (created.player_id, "sdk-bot", "bot", {})
        rotated = sky.rotate_key()
        assert sky.api_key == rotated.api_key != created.api_key and rotated.previous_key_valid_s > 0
        assert sky.me().player_id == created.player_id
        with Client(sdk_gateway.url, api_key=created.api_key) as old:  # the replaced key works in its grace period
            assert old.me().player_id == created.player_id
        assert sky.player(created.player_id).kind == "bot"
        assert {g.name for g in sky.catalog().games} == {"aeroplanes", "blueskies", "opensky"}
        assert sky.my_games().games == []
    with Client(sdk_gateway.url, api_key="sbk_nope") as nobody, pytest.raises(Unauthenticated):
        nobody.me()


def test_a_whole_game_with_its_spectator_and_seat_streams(sdk_gateway) -> None:
    with Client(sdk_gateway.url) as sky:
        sky.create_player("owner")
        created = sky.create_game("blueskies", 2, seed=3, time_control={"kind": "correspondence",
                                                                         "days_per_decision": 2})
        tokens = {s.seat: created.token(s.seat) for s in created.seats}
        followed: dict[str, list] = {"spectator": [], "seat0": []}

        def follow(name: str, token: str | None) -> None:
            with Client(sdk_gateway.url) as watcher:
                followed[name] = list(watcher.events(created.game_id, token))

        threads = [threading.Thread(target=follow, args=("spectator", None)),
                   threading.Thread(target=follow, args=("seat0", tokens[0]))]
        for t in threads:
            t.start()
        final = play_out(sky, created.game_id, tokens, random.Random(5))
        for t in threads:
            t.join(30)
        game = sky.game(created.game_id, tokens[0])
        assert game.status == "finished" and game.seat == 0 and game.winners
        assert game.time_control is not None and game.time_control.kind == "correspondence"
        for events in followed.values():
            states = [e.version for e in events if e.event == "state"]
            assert states == list(range(final + 1)), "every version once, in order"
            assert events[-1].event == "end" and events[-1].data["status"] == "finished"
            assert all(e.type != "message" for e in events)
        with Client(sdk_gateway.url) as late:  # a stream opened after some version starts after it
            tail = list(late.events(created.game_id, after=final - 1))
        assert [e.event for e in tail][-2:] == ["state", "end"] and {e.version for e in tail} == {final}
        log = sky.log(created.game_id)
        assert log.version == final and log.winners == game.winners


def test_refusals_are_typed_and_submissions_are_idempotent(sdk_gateway) -> None:
    with Client(sdk_gateway.url) as sky:
        sky.create_player("refused")
        created = sky.create_game("opensky", 2, seed=1)
        gid, t0 = created.game_id, created.token(0)
        legal = sky.legal_actions(gid, t0)
        with pytest.raises(StaleVersion) as stale:
            sky.submit(gid, t0, legal.actions[0], legal.version + 5)
        assert stale.value.current_version == legal.version
        with pytest.raises(InvalidRequest) as bad:
            sky.submit(gid, t0, {"type": "no_such_action"}, legal.version)
        assert bad.value.status == 422
        first = sky.submit(gid, t0, legal.actions[0], legal.version, idempotency_key="k-1")
        again = sky.submit(gid, t0, legal.actions[0], legal.version, idempotency_key="k-1")
        assert not first.replayed and again.replayed and again.version == first.version
        assert sky.legal_actions(gid, created.token(1)).actions == [] or 1 in sky.game(gid).to_act


def test_rotate_a_token_abort_and_resign(sdk_gateway) -> None:
    with Client(sdk_gateway.url) as sky:
        sky.create_player("leaver")
        a = sky.create_game("blueskies", 2, seed=2)
        new = sky.rotate_token(a.game_id, a.token(0))
        with pytest.raises(Unauthenticated):
            sky.game(a.game_id, a.token(0))
        assert sky.game(a.game_id, new).seat == 0
        sky.abort(a.game_id, new)
        assert sky.game(a.game_id).status == "aborted"
        with pytest.raises(GameOver):
            sky.abort(a.game_id, new)
        b = sky.create_game("blueskies", 2, seed=2)
        tokens = {0: b.token(0), 1: b.token(1)}
        rng = random.Random(2)
        acted: set[int] = set()
        while acted != {0, 1}:  # both seats decide once: no abort any more
            seat = sky.game(b.game_id).to_act[0]
            legal = sky.legal_actions(b.game_id, tokens[seat])
            sky.submit(b.game_id, tokens[seat], rng.choice(legal.actions), legal.version)
            acted.add(seat)
        with pytest.raises(Conflict) as refused:
            sky.abort(b.game_id, tokens[0])
        assert refused.value.code == "abort_not_allowed"
        assert sky.resign(b.game_id, tokens[1]).version > 0
        seats = {s.seat: s for s in sky.game(b.game_id).seats}
        assert seats[1].status == "resigned"
        with pytest.raises(Unauthenticated):
            sky.legal_actions(b.game_id, tokens[1])


def test_my_games_come_in_pages(sdk_gateway) -> None:
    """My games are bounded like the history: `limit` per page, `next_cursor` to the next one."""
    with Client(sdk_gateway.url) as sky:
        sky.create_player("pager")
        made = [sky.create_game("blueskies", 2, seed=seed, bots={1: "random"}, account_seats=[0]).game_id
                for seed in range(3)]
        first = sky.my_games(limit=2)
        assert len(first.games) == 2 and first.next_cursor
        last = sky.my_games(cursor=first.next_cursor, limit=2)
        assert last.next_cursor is None
        assert [g.game_id for g in first.games + last.games] == made[::-1]  # newest first


def test_challenges_through_the_account_stream(sdk_gateway) -> None:
    with Client(sdk_gateway.url) as ann, Client(sdk_gateway.url) as bob:
        ann.create_player("ann")
        bob_id = bob.create_player("bob").player_id
        declined = ann.challenge(bob_id, "opensky")
        assert bob.decline(declined.challenge_id).status == "declined"
        cancelled = ann.challenge(bob_id, "opensky")
        assert ann.cancel(cancelled.challenge_id).status == "cancelled"
        with pytest.raises(Conflict):
            bob.accept(cancelled.challenge_id)
        made = ann.challenge(bob_id, "opensky", time_control={"kind": "realtime", "seconds_per_decision": 60},
                             rated=True)
        incoming = next(e for e in bob.account_events(replay=True) if e.type == "challenge"
                        and e.data["challenge"]["challenge_id"] == made.challenge_id)
        assert incoming.data["challenge"]["to"] == bob_id
        assert [c.challenge_id for c in bob.challenges(status="pending")] == [made.challenge_id]
        accepted = bob.accept(made.challenge_id)
        start = next(e for e in ann.account_events() if e.type == "game_start")
        assert start.game_id == accepted.game_id and start.data["token"]
        assert ann.get_challenge(made.challenge_id).game_id == accepted.game_id
        assert {g.game_id for g in bob.my_games().games} == {accepted.game_id}
        assert ann.game(accepted.game_id, start.data["token"]).seat == 1 - accepted.seat


def test_real_429s_are_waited_out_as_retry_after_says(make_sdk_gateway) -> None:
    gw = make_sdk_gateway(rate_limit_token=3, rate_limit_window_s=1)
    with Client(gw.url) as sky:
        sky.create_player("hasty")
        started = time.monotonic()
        # 7 calls at 3 per window span three windows wherever the windows fall, so a whole one was waited out
        for _ in range(7):
            sky.me()
        assert time.monotonic() - started >= 0.9, "a full budget was waited out at least once"


def test_a_real_429_is_raised_when_the_policy_allows_no_retry(make_sdk_gateway) -> None:
    # an hour's window: the windows are aligned to the clock, and a burst on a 1 s window could span three of them
    # on a slow machine (3 + 3 + 1 calls answered); 7 calls at 3 per window span at most two of an hour
    gw = make_sdk_gateway(rate_limit_token=3, rate_limit_window_s=HOUR)
    with Client(gw.url) as sky:
        sky.create_player("impatient")
    with Client(gw.url, api_key=sky.api_key, retry=RetryPolicy(attempts=1)) as impatient, \
            pytest.raises(RateLimited) as limited:
        for _ in range(7):
            impatient.me()
    retry_after = limited.value.retry_after
    assert limited.value.code == "rate_limited" and retry_after is not None and 0 < retry_after <= HOUR


def test_the_async_client_plays_a_game_while_following_it(sdk_gateway) -> None:
    async def go() -> None:
        async with AsyncClient(sdk_gateway.url) as sky:
            await sky.create_player("async")
            created = await sky.create_game("opensky", 2, seed=9)
            tokens = {s.seat: created.token(s.seat) for s in created.seats}

            async def watch() -> list:
                return [e async for e in sky.events(created.game_id, tokens[1])]

            watching = asyncio.create_task(watch())
            rng = random.Random(9)
            game = await sky.game(created.game_id)
            while game.status == "active":
                seat = rng.choice(game.to_act)
                legal = await sky.legal_actions(created.game_id, tokens[seat])
                await sky.submit(created.game_id, tokens[seat], rng.choice(legal.actions), legal.version)
                game = await sky.game(created.game_id)
            events = await asyncio.wait_for(watching, 30)
            assert [e.version for e in events if e.event == "state"] == list(range(game.version + 1))
            assert events[-1].event == "end" and (await sky.me()).name == "async"

    asyncio.run(go())


def test_the_sdk_lists_games_by_status_and_title(sdk_gateway) -> None:
    from skyboard_client import Client

    with Client(sdk_gateway.url) as sky:
        key = sky.create_player("lister").api_key
    with Client(sdk_gateway.url, key) as sky:
        created = sky.create_game("blueskies", 2)
        listed = sky.games(status="active", game="blueskies", limit=500)
    assert created.game_id in {g.game_id for g in listed}
    assert all(g.status == "active" and g.game == "blueskies" for g in listed)
