"""The servers' garbage-collector settings (services/common/gctune.py) take effect."""

from __future__ import annotations

import gc

from services.common.gctune import YOUNG_THRESHOLD, tune_gc


def test_tune_gc_freezes_startup_objects_and_widens_the_young_generation() -> None:
    before = gc.get_threshold()
    try:
        tune_gc()
        assert gc.get_threshold() == (YOUNG_THRESHOLD, before[1], before[2])
        assert gc.get_freeze_count() > 1000  # the modules and tables loaded so far
    finally:
        gc.unfreeze()
        gc.set_threshold(*before)
