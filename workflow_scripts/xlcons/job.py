"""What every rule script does first: keep to the job's cores and log to the rule's log file."""

from __future__ import annotations

import logging
import os
import sys


def start_job(smk) -> None:
    """Call before importing torch or CTranslate2: both size their thread pools once, on import,
    from OMP_NUM_THREADS, so parallel jobs on one node would otherwise oversubscribe it."""
    os.environ.setdefault("OMP_NUM_THREADS", str(smk.threads))
    sys.stderr = open(smk.log[0], "w")
    logging.basicConfig(stream=sys.stderr, level=logging.INFO, format="%(asctime)s %(message)s", force=True)
