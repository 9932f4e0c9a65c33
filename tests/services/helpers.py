"""Helpers for driving games through the RPCs in tests."""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import grpc
import pytest

from services.gamestate.client import Created, GameServiceError
from services.gamestate.client_sync import GameClient


@dataclass
class Played:
    """What a random game through the RPCs saw, per version, for later comparison with a replay."""

    versions: list[int] = field(default_factory=list)
    views: dict[int, dict[int | None, dict[str, Any]]] = field(default_factory=dict)
    legal: dict[int, dict[int, list[dict[str, Any]]]] = field(default_factory=dict)
    submitted: dict[int, tuple[int, list[dict[str, Any]]]] = field(default_factory=dict)  # version -> (seat, events)
    digests: dict[int, str] = field(default_factory=dict)


def play_random(
    clients: Sequence[GameClient],
    created: Created,
    players: int,
    rng: random.Random,
    *,
    capture: bool = False,
    max_steps: int = 100_000,
) -> Played:
    """Play random legal actions for every seat until the game ends, rotating over `clients`.

    Seats are tokens of `created`; with capture=True every seat's (and a
    spectator's) view and legal actions are recorded at every version.
    """
    out = Played()
    step = 0
    first = clients[0].get_game(created.game_id)
    version, to_act, status = first.version, first.to_act, first.status
    while step < max_steps:
        client = clients[step % len(clients)]
        if capture or status == "finished":
            spectator = client.get_game(created.game_id)
            assert (spectator.version, spectator.to_act, spectator.status) == (version, to_act, status)
            # the full state's hash is a seat's to read while the game is active (a spectator's view omits it)
            seated = next(s.token for s in created.seats if s.token)
            out.digests[version] = client.get_game(created.game_id, seated).digest
        if status == "finished":
            break
        out.versions.append(version)
        if capture:
            out.views[version] = {None: spectator.view}
            out.legal[version] = {}
            for seat in range(players):
                view = client.get_game(created.game_id, created.token(seat))
                assert view.version == version and view.seat == seat
                out.views[version][seat] = view.view
                legal = client.legal_actions(created.game_id, created.token(seat))
                out.legal[version][seat] = legal.actions
        seat = to_act[rng.randrange(len(to_act))]
        actions = client.legal_actions(created.game_id, created.token(seat)).actions
        assert actions, f"seat {seat} is to act at version {version} but has no legal action"
        action = actions[rng.randrange(len(actions))]
        result = client.submit(created.game_id, created.token(seat), action, version)
        assert result.version == version + 1
        out.submitted[result.version] = (seat, result.events)
        version, to_act, status = result.version, result.to_act, result.status
        step += 1
    else:
        pytest.fail(f"game {created.game_id} did not finish in {max_steps} steps")
    return out


def expect_error(code: grpc.StatusCode, fn, *args, **kwargs) -> GameServiceError:
    """Call fn and return the GameServiceError it must raise with `code`."""
    with pytest.raises(GameServiceError) as info:
        fn(*args, **kwargs)
    assert info.value.code == code, f"expected {code.name}, got {info.value}"
    return info.value
