"""One id per pytest run, in every Redis key prefix and queue name the suites create.

The end-of-run sweep (tests/conftest.py) deletes only keys carrying this id, so a
test run never touches the keys of another run, or of a benchmark, sharing the same
Redis. Subprocesses inherit it through the environment.
"""

from __future__ import annotations

import os
import uuid

RUN: str = os.environ.setdefault("SKYBOARD_TEST_RUN", uuid.uuid4().hex[:6])
