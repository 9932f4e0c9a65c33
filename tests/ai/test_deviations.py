"""bench.deviations: the count of decisions where the search overrules the greedy rule."""

from __future__ import annotations

import pytest

from bench.deviations import deviations, main


def test_counts_sampled_and_overruled_decisions_per_kind_and_skips_rule_kinds():
    counts = deviations("opensky", 2, games=1, iterations=[5, 40], every=7)
    assert "bid" not in counts  # OS-10: sealed bids are the rule's, never searched
    assert "place_aircraft" in counts and len(counts) >= 3
    for sampled, *overruled in counts.values():
        assert sampled > 0 and all(0 <= d <= sampled for d in overruled)
    assert deviations("opensky", 2, games=1, iterations=[5, 40], every=7) == counts  # seeded


def test_bad_iteration_lists_are_refused_by_name(capsys):
    for bad in ("x", "0", ""):
        with pytest.raises(SystemExit):
            main(["--game", "opensky", "--iterations", bad])
        assert "--iterations" in capsys.readouterr().err
