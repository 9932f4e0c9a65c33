"""Watchers on any instance get every version in order, redacted, and resume without gaps."""

from __future__ import annotations

import random
import threading

from tests.services.helpers import play_random


def test_watcher_on_another_instance_resumes_without_gaps(make_instance, make_client):
    a, b = make_client(make_instance()), make_client(make_instance())
    game = a.create_game("toybids", 2, seed=21, options={"rounds": 4})
    seen: list[int] = []
    first_part = b.watch(game.game_id, game.token(0))
    for update in first_part:  # versions 0.. as they are made on instance a
        seen.append(update.version)
        if update.version == 0:
            assert update.kind == "created" and update.events[0]["type"] == "game_created"
            hand = a.get_game(game.game_id, game.token(0)).view["hand"]
            a.submit(game.game_id, game.token(0), {"type": "bid", "card": hand[0]}, 0)
        if update.version == 1:
            break
    first_part.close()  # disconnect mid-game
    played = play_random([a], game, 2, random.Random(3))  # moves made while nobody watches
    resumed = list(b.watch(game.game_id, game.token(0), after_version=seen[-1]))  # ends at the end
    versions = seen + [u.version for u in resumed]
    final = a.get_game(game.game_id)
    assert versions == list(range(final.version + 1))
    assert resumed[-1].status == "finished" and resumed[-1].winners == final.winners
    assert resumed[-1].scores == final.scores
    assert played.versions[0] == 1


def test_live_watchers_see_each_version_once_and_only_their_own_secrets(make_instance, make_client):
    a, b = make_client(make_instance()), make_client(make_instance())
    game = a.create_game("toybids", 2, seed=22, options={"rounds": 3})
    streams: dict[object, list] = {}

    def watch(seat):
        token = game.token(seat) if seat is not None else None
        streams[seat] = list(b.watch(game.game_id, token))

    threads = [threading.Thread(target=watch, args=(s,)) for s in (0, 1, None)]
    for t in threads:
        t.start()
    played = play_random([a, b], game, 2, random.Random(4))
    for t in threads:
        t.join(10)
        assert not t.is_alive()
    final = a.get_game(game.game_id).version
    for seat, updates in streams.items():
        assert [u.version for u in updates] == list(range(final + 1))
        for u in updates[1:]:
            actor, events = played.submitted[u.version]
            assert u.actor == actor
            visible = [e for e in events if "visible_to" not in e or seat in e["visible_to"]]
            if seat == actor:
                assert u.events == events  # the actor sees exactly what it was answered
            else:
                assert u.events == visible
                assert not any(e["type"] == "you_bid" for e in u.events)  # never another seat's sealed bid


def test_watching_a_finished_game_from_its_last_version_ends_at_once(client):
    game = client.create_game("toybids", 2, seed=23, options={"rounds": 2})
    play_random([client], game, 2, random.Random(5))
    final = client.get_game(game.game_id)
    assert list(client.watch(game.game_id, after_version=final.version)) == []
    tail = list(client.watch(game.game_id, game.token(1), after_version=final.version - 1))
    assert [u.version for u in tail] == [final.version] and tail[0].status == "finished"
