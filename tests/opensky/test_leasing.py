"""OS-17.3 lease payments and change credit."""

from __future__ import annotations

from engine.opensky.leasing import lease_credit, lease_options


def _table(*cards: int) -> tuple[int, ...]:
    fares = (200, 250, 300, 400, 500)
    return tuple(cards.count(v) for v in fares)


def test_OS_17_2_source_example_300_pays_one_aircraft_with_100_change():
    assert lease_options(_table(300), 0, 6) == ((1, (300,)),)
    assert lease_credit(0, (300,), 1) == 100


def test_OS_17_3_no_superfluous_card_in_a_payment():
    options = lease_options(_table(200, 250, 500), 0, 1)
    # 500 alone, 250 alone, 200 alone pay for one aircraft; no pair is minimal.
    assert options == ((1, (200,)), (1, (250,)), (1, (500,)))


def test_OS_17_3_two_aircraft_need_cards_worth_400():
    options = dict.fromkeys(lease_options(_table(200, 250, 300), 0, 2))
    assert (2, (250, 200)) in options
    assert (2, (300, 200)) in options
    assert (2, (300, 250)) in options
    assert (2, (300, 250, 200)) not in options  # 200 is superfluous


def test_OS_17_3_credit_covers_the_cost_with_no_card():
    assert lease_options(_table(500), 200, 1) == ((1, ()),)
    assert lease_credit(200, (), 1) == 0


def test_OS_17_3_credit_counts_towards_the_payment():
    # credit 100 + 200 card = 300 >= 200; 200 card alone would do too, so it is minimal.
    assert (1, (200,)) in lease_options(_table(200), 100, 1)
    # credit 100 + 250 + 200 = 550 >= 400 for two, neither card superfluous.
    assert (2, (250, 200)) in lease_options(_table(200, 250), 100, 2)


def test_OS_17_6_aircraft_capped_by_tokens_off_the_board():
    assert all(k <= 1 for k, _ in lease_options(_table(500, 500, 500), 0, 1))
    assert lease_options(_table(500), 0, 0) == ()


def test_OS_17_3_table_value_falls_by_200_per_aircraft():
    for k, cards in lease_options(_table(200, 250, 300, 400, 500), 50, 3):
        table_before = 200 + 250 + 300 + 400 + 500 + 50
        after = table_before - sum(cards) + lease_credit(50, cards, k) - 50
        assert table_before - after == 200 * k
