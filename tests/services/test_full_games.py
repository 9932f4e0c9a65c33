"""A full game of every registered game played through the RPCs, checked against an engine replay.

Every view, legal-action list, submission answer and watch stream a seat
received is compared with what the engine itself gives that seat at that
version (replayed from the published seed + log): the service adds nothing
and leaks nothing beyond the engine's own redaction, and the replay
reproduces the stored final digest.
"""

from __future__ import annotations

import random
import threading

import pytest

from engine.core import canonical_json, redact_events
from services.gamestate.service import Registry
from tests.services import toygame
from tests.services.helpers import play_random

REGISTRY = Registry({toygame.GAME.name: toygame.GAME})
# Every game at its smallest table with every seat's view and legal actions captured at every
# version, and at its largest table with the answers and every seat's stream checked (cheaper).
CASES = [
    (name, players, players == REGISTRY.get(name).min_players)
    for name in REGISTRY.names()
    for players in sorted({REGISTRY.get(name).min_players, REGISTRY.get(name).max_players})
]


def _same(a, b) -> bool:
    return canonical_json(a) == canonical_json(b)


# Aeroplanes, the longest title, in make test-slow; the other titles keep the RPC path in make test (make test's
# ten-minute budget)
@pytest.mark.parametrize(("name", "players", "capture"), [
    pytest.param(n, p, c, id=f"{n}-{p}p", marks=[pytest.mark.slow] if n == "aeroplanes" else []) for n, p, c in CASES
])
def test_full_game_through_the_rpcs_matches_an_engine_replay(
    name, players, capture, make_instance, make_client, registry
):
    a, b = make_client(make_instance()), make_client(make_instance())
    game = a.create_game(name, players, seed=1234)
    streams: dict[int | None, list] = {}

    def watch(seat):
        streams[seat] = list(b.watch(game.game_id, game.token(seat) if seat is not None else None))

    watchers = [threading.Thread(target=watch, args=(s,)) for s in [None, *range(players)]]
    for t in watchers:
        t.start()
    played = play_random([a, b], game, players, random.Random(7), capture=capture)
    for t in watchers:
        t.join(30)
        assert not t.is_alive(), "a watch stream did not end with the game"

    final = a.get_game(game.game_id)
    log = b.get_log(game.game_id)
    assert final.status == "finished" and log.final_digest == final.digest
    assert (log.game, log.players, log.seed, log.version) == (name, players, 1234, final.version)
    assert log.scores == final.scores and log.winners == final.winners

    engine_game = registry.get(name)
    state = engine_game.new(log.players, log.seed, log.options)
    for entry in log.entries:
        v = entry["v"] - 1
        if v in played.digests:
            assert state.digest() == played.digests[v]
        if capture:
            for seat in [None, *range(players)]:
                assert _same(played.views[v][seat], state.view(seat)), f"view of seat {seat} at version {v}"
            for seat in range(players):
                expected = [x.to_json() for x in state.legal_actions(seat)]
                assert _same(played.legal[v][seat], expected), f"legal actions of seat {seat} at version {v}"
        events = state.apply(entry["seat"], engine_game.action_from_json(entry["action"]))
        actor, answered = played.submitted[entry["v"]]
        assert actor == entry["seat"] and _same(answered, redact_events(events, actor))
        for seat, updates in streams.items():
            update = updates[entry["v"]]
            assert update.version == entry["v"] and update.actor == actor
            assert _same(update.events, redact_events(events, seat)), f"stream of seat {seat} at {entry['v']}"
    assert state.digest() == log.final_digest and state.is_over()
    assert state.winners() == final.winners and state.scores() == final.scores
    for updates in streams.values():
        assert [u.version for u in updates] == list(range(final.version + 1))


def test_secrets_never_reach_another_seat_TOY_1(make_instance, make_client):
    """Other seats' cards (in hand or sealed as a pending bid) never appear in anything a seat
    receives (view, legal actions, submission answers, watch stream) before the public reveal."""
    client = make_client(make_instance())
    game = client.create_game("toybids", 3, seed=77, options={"rounds": 4})
    dealt = {s: set(client.get_game(game.game_id, game.token(s)).view["hand"]) for s in range(3)}
    revealed: set[str] = set()
    received: dict[int, list[tuple[set[str], str]]] = {s: [] for s in range(3)}  # (secret then, text)

    def secret_for(seat: int) -> set[str]:
        return {c for o in range(3) if o != seat for c in dealt[o]} - revealed

    rng = random.Random(8)
    while (spectator := client.get_game(game.game_id)).status != "finished":
        for s in range(3):
            view = client.get_game(game.game_id, game.token(s)).view
            legal = client.legal_actions(game.game_id, game.token(s)).actions
            received[s].append((secret_for(s), canonical_json([view, legal])))
        seat = spectator.to_act[rng.randrange(len(spectator.to_act))]
        action = rng.choice(client.legal_actions(game.game_id, game.token(seat)).actions)
        answer = client.submit(game.game_id, game.token(seat), action, spectator.version)
        for event in answer.events:
            if event["type"] == "reveal":
                revealed.update(event["bids"].values())
        received[seat].append((secret_for(seat), canonical_json(answer.events)))
    for s in range(3):
        revealed.clear()
        for update in client.watch(game.game_id, game.token(s)):
            for event in update.events:
                if event["type"] == "reveal":
                    revealed.update(event["bids"].values())
                    event = {**event, "bids": {}}  # the public reveal itself may show them
                received[s].append((secret_for(s), canonical_json(event)))
    for s in range(3):
        assert received[s]
        for secret, text in received[s]:
            assert not [card for card in secret if card in text], f"seat {s} received a secret card"
