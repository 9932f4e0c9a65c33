"""The platform's result rule (services/common/standings.py): forfeited seats rank last and never win; at most one seat
left ends the game; an aborted game shows no result. Unit and property tests of the pure functions every read uses."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from services.common import standings


def test_forfeited_seats_rank_last_and_share_the_last_place() -> None:
    assert standings.ranks([10, 5, 7], [0]) == [1, 3, 2]
    assert standings.ranks([10, 5, 7], [0], forfeited={0}) == [3, 2, 1]  # the zombie won seat 0's game: still last
    assert standings.ranks([10, 5, 7, 1], [0], forfeited={0, 2}) == [3, 1, 3, 2]
    assert standings.ranks([4, 4], [0, 1], forfeited={1}) == [1, 2]


def test_a_game_ends_by_forfeit_once_at_most_one_seat_is_left() -> None:
    assert not standings.ends_by_forfeit(2, [])
    assert standings.ends_by_forfeit(2, [0])
    assert not standings.ends_by_forfeit(3, [1])  # two players left: the seat is played out
    assert standings.ends_by_forfeit(3, [0, 2])
    assert standings.ends_by_forfeit(2, [0, 1])


def test_winners_of_a_game_ended_by_forfeit_and_of_one_played_out() -> None:
    assert standings.winners(2, [3, 9], [], [1], engine_over=False) == [0]  # the seat left wins, whatever the score
    assert standings.winners(2, [3, 9], [], [0, 1], engine_over=False) == []  # nobody is left: nobody wins
    assert standings.winners(3, [10, 5, 7], [0], [0], engine_over=True) == [2]  # the best unforfeited seat
    assert standings.winners(3, [5, 7, 7], [1, 2], [], engine_over=True) == [1, 2]  # a shared win stays shared
    assert standings.winners(3, [10, 7, 7], [0], [0], engine_over=True) == [1, 2]  # tied for first among those left


def test_an_aborted_game_shows_no_result_and_only_a_finished_one_shows_winners() -> None:
    assert standings.shown_scores("aborted", [0, 0]) is None
    assert standings.shown_scores("active", [3, 1]) == [3, 1]
    assert standings.shown_winners("finished", [1]) == [1]
    assert standings.shown_winners("active", []) is None
    assert standings.shown_winners("aborted", []) is None


@st.composite
def results(draw) -> tuple[int, list[int], list[int], set[int]]:
    players = draw(st.integers(2, 5))
    scores = draw(st.lists(st.integers(-50, 500), min_size=players, max_size=players))
    best = max(scores)
    engine_winners = [s for s in range(players) if scores[s] == best]
    forfeited = draw(st.sets(st.integers(0, players - 1), max_size=players))
    return players, scores, engine_winners, forfeited


@given(results())
def test_no_forfeited_seat_ever_wins_or_ranks_above_a_seat_that_stayed(result) -> None:
    players, scores, engine_winners, forfeited = result
    placed = standings.ranks(scores, engine_winners, forfeited)
    stayed = [s for s in range(players) if s not in forfeited]
    assert all(placed[f] > placed[s] for f in forfeited for s in stayed)
    won = standings.winners(players, scores, engine_winners, forfeited, engine_over=True)
    assert not set(won) & forfeited
    assert bool(won) == bool(stayed)  # someone who stayed always wins a finished game
    assert all(placed[s] == 1 for s in won)
    if not forfeited:
        assert won == engine_winners  # without forfeits the engine's standing is the result
