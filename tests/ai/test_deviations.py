"""research.lab.deviations: the count of decisions where the search overrules the greedy rule."""

from __future__ import annotations

import pytest

from research.lab.deviations import deviations, main


def test_counts_sampled_and_overruled_decisions_per_kind_and_skips_rule_kinds():
    counts = deviations("opensky", 2, games=1, iterations=[5, 40], every=7)
    assert "bid" not in counts  # OS-10: sealed bids are the rule's, never searched
    assert "place_aircraft" in counts and len(counts) >= 3
    for sampled, *overruled in counts.values():
        assert sampled > 0 and all(0 <= d <= sampled for d in overruled)
    assert deviations("opensky", 2, games=1, iterations=[5, 40], every=7) == counts  # seeded


def test_value_plays_out_every_decision_overruled_at_the_first_cap_and_no_other():
    values: dict = {}
    counts = deviations("opensky", 2, games=1, iterations=[5], every=7, value_rounds=2, values=values)
    assert sum(len(rows) for rows in values.values()) == sum(row[1] for row in counts.values()) > 0
    assert set(values) <= set(counts)
    for rows in values.values():
        assert all(-1.0 <= win <= 1.0 for win, _ in rows)
    again: dict = {}
    deviations("opensky", 2, games=1, iterations=[5], every=7, value_rounds=2, values=again)
    assert again == values  # seeded, playouts included


def test_bad_iteration_lists_are_refused_by_name(capsys):
    for bad in ("x", "0", ""):
        with pytest.raises(SystemExit):
            main(["--game", "opensky", "--iterations", bad])
        assert "--iterations" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["--game", "opensky", "--value", "-1"])
    assert "--value" in capsys.readouterr().err
