"""A seat that left never wins (services/common/standings.py): resigned and abandoned players rank last, and a game
with at most one seat left ends at once, won by that seat. Over the real service and Redis, with the toy game (TOY-n).

The reads that show a result must agree: the game view, the watch stream's last entry, the game list and the log.
The engine's own standing is never touched: replaying the log through the engine still names its own winner.
"""

from __future__ import annotations

import grpc

from services.common.bot_policy import human_lists
from services.gamestate.client_sync import GameClient
from tests.services import toygame
from tests.services.helpers import expect_error

C = grpc.StatusCode
ROUNDS = 4


def lowest_card_winners(players: int, seed: int, rounds: int = ROUNDS) -> list[int]:
    """The engine's winners when every seat bids its lowest card each round (TOY-5's default decision)."""
    state = toygame.ToyGame().new(players, seed, {"rounds": rounds})
    while not state.is_over():
        for seat in state.to_act():
            state.apply(seat, state.default_action(seat))
    return state.winners()


def _bid_lowest(client: GameClient, game, seat: int) -> int:
    view = client.get_game(game.game_id, game.token(seat))
    return client.submit(game.game_id, game.token(seat), {"type": "bid", "card": min(view.view["hand"])},
                         view.version).version


def _assert_reads_agree(client: GameClient, game_id: str, status: str, winners: list[int]) -> None:
    view = client.get_game(game_id)
    assert (view.status, view.winners) == (status, winners)
    last = list(client.watch(game_id, after_version=0))[-1]
    assert (last.status, last.winners) == (status, winners)
    listed = next(g for g in client.list_games(status) if g.game_id == game_id)
    assert listed.status == status
    log = client.get_log(game_id)
    assert (log.status, log.winners) == (status, winners)


def test_a_two_player_resignation_ends_the_game_at_once_and_the_opponent_wins(make_instance, make_client, rdb,
                                                                              settings, broker) -> None:
    client = make_client(make_instance(zombie_bot_level="greedy"))
    game = client.create_game("toybids", 2, seed=31, options={"rounds": ROUNDS})
    _bid_lowest(client, game, 0)
    version = client.resign(game.game_id, game.token(0))
    view = client.get_game(game.game_id, game.token(1))
    assert (view.status, view.winners, view.to_act, view.resigned) == ("finished", [1], [], [0])
    assert view.version == version and view.scores == [0, 0]  # the scores as they stood
    assert broker.llen(human_lists(settings.bot_queue)[1]) == 0  # nobody plays on: no zombie is queued
    assert client.legal_actions(game.game_id, game.token(1)).actions == []
    err = expect_error(C.FAILED_PRECONDITION, _bid_lowest, client, game, 1)
    assert err.reason == "game_over"
    assert client.get_game(game.game_id).version == version  # the refusal changed nothing
    _assert_reads_agree(client, game.game_id, "finished", [1])


def test_a_resigned_seat_is_played_out_but_never_wins_even_when_the_engine_says_it_won(make_client,
                                                                                      instance) -> None:
    """3 players: the resigner's seat (auto-played, TOY-5) would win the engine's game; it ranks last instead."""
    seed = next(s for s in range(1, 500) if lowest_card_winners(3, s) == [2])
    client = make_client(instance)
    game = client.create_game("toybids", 3, seed=seed, options={"rounds": ROUNDS})
    client.resign(game.game_id, game.token(2))
    assert client.get_game(game.game_id).status == "active"  # two players are left: the seat is played out
    for _round in range(ROUNDS):
        _bid_lowest(client, game, 0)
        _bid_lowest(client, game, 1)
    view = client.get_game(game.game_id)
    best = max(view.scores[0], view.scores[1])
    expected = [s for s in (0, 1) if view.scores[s] == best]
    assert view.scores[2] > best  # seat 2 outscored everyone...
    _assert_reads_agree(client, game.game_id, "finished", expected)  # ...and is not among the winners
    log = client.get_log(game.game_id)
    replayed = toygame.ToyGame().new(3, seed, {"rounds": ROUNDS})
    for entry in log.entries:
        if entry["action"] is not None:
            replayed.apply(entry["seat"], replayed.game.action_from_json(entry["action"]))
    assert replayed.winners() == [2]  # the engine's own standing is untouched


def test_when_all_but_one_seat_have_resigned_the_last_one_wins_at_once(client: GameClient) -> None:
    game = client.create_game("toybids", 3, seed=33, options={"rounds": ROUNDS})
    client.resign(game.game_id, game.token(0))
    assert client.get_game(game.game_id).status == "active"
    client.resign(game.game_id, game.token(2))
    _assert_reads_agree(client, game.game_id, "finished", [1])
    expect_error(C.FAILED_PRECONDITION, client.resign, game.game_id, game.token(1))


def test_an_aborted_game_has_no_scores_and_no_winners_in_every_read(client: GameClient) -> None:
    game = client.create_game("toybids", 2, seed=34, options={"rounds": ROUNDS})
    client.abort(game.game_id, game.token(0))
    view = client.get_game(game.game_id)
    assert (view.status, view.scores, view.winners) == ("aborted", [], [])
    last = list(client.watch(game.game_id, after_version=0))[-1]
    assert (last.status, last.scores, last.winners) == ("aborted", [], [])
    log = client.get_log(game.game_id)
    assert (log.status, log.scores, log.winners) == ("aborted", [], [])


def test_the_forfeit_that_ends_a_game_hands_the_seat_to_nobody_and_says_who_won(make_instance, make_client) -> None:
    client = make_client(make_instance(zombie_bot_level="greedy"))
    game = client.create_game("toybids", 2, seed=35, options={"rounds": ROUNDS})
    client.resign(game.game_id, game.token(1))
    view = client.get_game(game.game_id)
    assert view.bots == {} and view.seats[1] == {"seat": 1, "kind": "human", "status": "resigned", "bot_level": None}
    last = list(client.watch(game.game_id, after_version=0))[-1]
    assert last.events == [{"type": "seat_resigned", "seat": 1, "bot": None},
                           {"type": "game_forfeited", "seat": 0, "reason": "resigned"}]
