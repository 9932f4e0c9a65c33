"""The slowest checks `make test` leaves to `make test-integration`, which `.ci/run` runs too: they bring `make test`
nearer its ten-minute budget on a 2-core machine (the brief's), and nothing leaves CI.

Picked from `pytest --durations=60` of `make test`'s selection: each takes 6-23 s of a 10-minute run, and each is a
larger case of a check that stays (the Aeroplanes case of a per-title table, one language of several, the slower of
two near-duplicates) or a whole-game run whose parts `make test` checks on their own. tests/conftest.py marks them
`integration`; the web client's browser suites beyond its representative ones carry the mark in their own files.
"""

from __future__ import annotations

#: pytest node ids, as `pytest --durations` prints them.
INTEGRATION_TESTS = frozenset({
    "tests/workers/test_bot_ended_game.py::test_a_game_a_bot_ends_is_settled_and_announced_by_the_consumer_alone",
    "tests/workers/test_workers.py::test_a_real_worker_plays_every_bot_seat_of_a_full_game[aeroplanes]",
    "tests/workers/test_policy.py::test_levels_think_less_when_the_human_queue_is_old[mcts-hard]",
    "tests/workers/test_abandoned_game.py::test_a_matched_game_whose_human_leaves_finishes_through_the_zombie_and_settles",
    "tests/proof/rest/test_refusals.py::test_a_flood_is_cut_to_the_budget_with_429",
    "tests/webclient/test_log_numbers.py::test_every_log_line_says_the_events_numbers_in_every_language[aeroplanes]",
    "tests/webclient/test_matchmaking_ui.py::test_two_lobbies_are_matched_into_one_game",
    "tests/webclient/test_signup_limit.py::"
    "test_a_refused_sign_up_is_said_beside_the_button_and_a_kept_account_still_plays_bots",
    "tests/webclient/test_names.py::test_a_russian_route_filter_finds_a_city_by_its_russian_name",
    "tests/webclient/test_bot_thinking.py::test_a_bot_to_act_shows_it_is_thinking_on_its_seat[viewport1-it]",
    "tests/webclient/test_languages.py::test_no_string_is_wider_than_its_box_at_phone_width[en]",
    "tests/webclient/test_languages.py::test_no_string_is_wider_than_its_box_at_phone_width[it]",
    "tests/webclient/test_languages.py::test_no_string_is_wider_than_its_box_at_phone_width[pl]",
})
