"""A whole game of each title through the client `openapi-python-client` generates from /openapi.json.

CI (tests/sdk/test_generated_clients.py) generates the client, type-checks this file against it under
`mypy --strict` and runs it against a live gateway: the generated client must read every real answer (a game of
each title, its legal actions, each submission's events) without a cast. Every seat is played by random legal
moves with its own seat token; the account's API key creates the game.

Usage: python play_loop.py BASE_URL
"""

from __future__ import annotations

import random
import sys

from skyboard_api import AuthenticatedClient, Client
from skyboard_api.api.games import create_game, get_game, legal_actions, submit_action
from skyboard_api.api.players import create_player
from skyboard_api.models import (
    AeroplanesGameOut,
    BlueskiesGameOut,
    CreatedGame,
    CreateGame,
    ErrorBody,
    LegalActions,
    NewPlayer,
    OpenskyGameOut,
    PlayerCreated,
    SubmitAction,
    Submitted,
)

GameOut = AeroplanesGameOut | BlueskiesGameOut | OpenskyGameOut
TITLES = {"aeroplanes": 3, "blueskies": 2, "opensky": 2}


def play(base_url: str, title: str, players: int, seed: int) -> int:
    """Random legal moves for every seat until the game ends; the number of moves made."""
    created = create_player.sync(client=Client(base_url=base_url), body=NewPlayer(name="gen", kind="bot"))
    if not isinstance(created, PlayerCreated):
        raise SystemExit(f"create_player: {created!r}")
    owner = AuthenticatedClient(base_url=base_url, token=created.api_key)
    made = create_game.sync(client=owner, body=CreateGame(game=title, players=players, seed=seed))
    if not isinstance(made, CreatedGame):
        raise SystemExit(f"create_game: {made!r}")
    seats = {s.seat: AuthenticatedClient(base_url=base_url, token=s.token) for s in made.seats if s.token}
    rng = random.Random(seed)
    moves = 0
    while True:
        game = get_game.sync(made.game_id, client=seats[0])
        if not isinstance(game, GameOut):
            raise SystemExit(f"get_game: {game!r}")
        if game.game != title or game.status != "active":
            return moves
        seat = seats[rng.choice(game.to_act)]
        legal = legal_actions.sync(made.game_id, client=seat)
        if not isinstance(legal, LegalActions):
            raise SystemExit(f"legal_actions: {legal!r}")
        body = SubmitAction(action=rng.choice(legal.actions), expected_version=legal.version)
        done = submit_action.sync(made.game_id, client=seat, body=body)
        if isinstance(done, ErrorBody) or not isinstance(done, Submitted):
            raise SystemExit(f"submit_action: {done!r}")
        moves += 1


def main() -> None:
    for title, players in TITLES.items():
        print(f"{title}: {play(sys.argv[1], title, players, seed=5)} moves")


if __name__ == "__main__":
    main()
