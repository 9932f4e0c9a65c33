"""Bounded soak (the full one is `make soak`): real service, bot worker and gateway processes are SIGKILLed
at random moments and restarted while games of all three games are played through REST, and the outcomes consumer
is SIGKILLed mid-batch while rated games between accounts are played; then a private append-only Redis is killed
and restarted mid-play.

Every game finishes, the engine replay of each log reproduces the stored digest, every acknowledged action
sits in the log at its acknowledged version (nothing lost, nothing applied twice) and clients saw only
retries and clean errors; every rated game is settled exactly once and its `game_end` is on each of its two
accounts' streams once."""

from __future__ import annotations

import pytest

from bench import soak
from bench.stack import free_port

#: minutes of wall clock: run by `make test-slow` (in CI), not by `make test`
pytestmark = pytest.mark.slow


def test_games_survive_sigkills_of_service_worker_and_gateway(redis_url):
    # kills early: on a quiet machine these 4 games end within about 2 s
    args = soak.parse_args(["--games", "4", "--concurrency", "8", "--kills", "3", "--kill-from", "0.2",
                            "--kill-span", "1.0", "--rated-pairs", "4", "--outcomes-kills", "2", "--timeout", "240",
                            "--seed", "3", "--redis-url", redis_url])
    report = soak.fault_soak(args)
    assert report["problems"] == [], report
    assert report["unclean_errors"] == {}, report
    assert report["games"] == 8 and report["actions"] > 0
    assert sum(report["kills_by_role"].values()) >= 2, report["kills"]
    # the consumer was killed holding entries it had read and not acknowledged, and still nothing was lost or doubled
    assert len(report["consumer_kills"]) == 2 and any(k["pending_at_kill"] for k in report["consumer_kills"]), report
    assert (report["rated_games"], report["game_end_delivered"]) == (4, 8), report


def test_a_redis_restart_loses_no_acknowledged_action():
    args = soak.parse_args(["--games", "0", "--redis-games", "2", "--redis-kill-at", "1.5", "--timeout", "180",
                            "--redis-port", str(free_port()), "--seed", "4"])
    report = soak.redis_restart_soak(args)
    assert report["problems"] == [], report
    assert report["unclean_errors"] == {}, report
    assert report["redis_kills"], "Redis was killed mid-play"
    assert report["acked_human_actions"] > report["redis_kills"][0]["acked_before_kill"] > 0
