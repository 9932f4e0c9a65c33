"""Running a long research job beside other work: `nice` that holds across sessions.

Linux schedules each session (`setsid`, `nohup` from another terminal) as its own autogroup and weighs `nice` only
inside it, so a `nice -n 19` job started with `setsid` still takes whole cores from the tests and benchmarks beside it
(seen: a niced paired run at an equal share with `make test`) unless its autogroup is niced as well.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path


def yield_cpu_to_others() -> None:
    """Give this process's scheduling group (autogroup) the process's niceness, so `nice` means what it says
    against other sessions. A process that is not niced changes nothing; no autogroups (another OS, or a kernel
    built without them): plain nice applies."""
    niceness = os.nice(0)
    if niceness <= 0:
        return
    with contextlib.suppress(OSError):
        Path("/proc/self/autogroup").write_text(f"{niceness}\n")
