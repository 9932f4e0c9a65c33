"""Learned bots at play time (docs/decisions/learned-bots.md): afterstate features from the seat's view (`features`), a
small model evaluated with numpy (`model`) and the bots that play it (`bot`). Training is offline in `research/train`
(PyTorch); this package needs numpy only, so a worker carries no training stack.

Each game's profile (`ai/games/<game>.py`) names the models it plays (`fast_model`, its search's `priors`); only
those are in `models/`, listed in `models/manifest.json` with their sha256 and shipped with their card (data
manifest, training command); their evaluation ledgers, measured on deals never used for training, are kept with
the research that made them.
"""

from __future__ import annotations

import os
from pathlib import Path

MODELS_DIR = Path(__file__).resolve().parent / "models"

#: The variables BLAS libraries (numpy's OpenBLAS, MKL, OpenMP) size their thread pools by.
BLAS_THREAD_VARIABLES = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")


def one_blas_thread() -> None:
    """One BLAS thread per process unless the environment says otherwise; call it before numpy is imported. A model's
    products are a few thousand multiply-adds, too small to share, and a worker already runs a process a core: a
    pool's threads only spin beside it, and that CPU is charged to the decision (Blue Skies' fast level: 1.40 ms a
    decision with the default pool, 1.27 ms with one thread, medians of 3 runs of `bench.bot_cost`)."""
    for name in BLAS_THREAD_VARIABLES:
        os.environ.setdefault(name, "1")
