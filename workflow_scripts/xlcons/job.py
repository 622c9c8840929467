"""What every rule script does first: keep to the job's cores, stay off the Hub, log to the rule's log.

Every script has the same shape: module level only puts this package on the path, and the
work is in ``main(smk)``, called under ``if __name__ == "__main__":``. vLLM starts its engine
core in a *spawned* process (on CPUs always, on GPUs once CUDA is initialised), and a spawned
child imports the parent's script again; unguarded, it would run the whole job a second time.
"""

from __future__ import annotations

import logging
import os
import sys
import time

from xlcons import budget, progress, usage
from xlcons.redaction import RedactingStream, remember_environment

# Compute jobs read what the fetch rules put on disk; with these set, a missing file fails
# at once with the Hub's "offline" error instead of hanging on retries on a node without
# internet.
HF_OFFLINE = {"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1"}


def start_job(smk, *, offline: bool = True) -> None:
    """Call before importing torch or CTranslate2: both size their thread pools once, on import,
    from OMP_NUM_THREADS, so parallel jobs on one node would otherwise oversubscribe it.

    The log is written through xlcons.redaction.RedactingStream: no API key reaches it.

    ``offline=False`` for the local rules that may download (fetches, a user's ``hf_dataset``
    prompts). A variable the user set (``HF_HUB_OFFLINE=0``) is left as it is.
    """
    usage.ledger().started = time.monotonic()  # the job's wall time, in its usage ledger, runs from here
    os.environ.setdefault("OMP_NUM_THREADS", str(smk.threads))
    if offline:
        for name, value in HF_OFFLINE.items():
            os.environ.setdefault(name, value)
    # Everything the job writes to its log (records, warnings, tracebacks) passes redaction:
    # an endpoint may echo the API key back in an error.
    remember_environment()
    sys.stderr = RedactingStream(open(smk.log[0], "w"))
    # What `xlcons progress` reads while the run goes on: this job's progress lines, as figures.
    progress.set_status_file(progress.status_file_for_log(smk.log[0]))
    logging.basicConfig(stream=sys.stderr, level=logging.INFO, format="%(asctime)s %(message)s", force=True)
    install_budget(smk)


def install_budget(smk) -> None:
    """A job that calls a model (its rule declares the output `usage`) stops at the run's limits:
    its guard (xlcons.budget) comes from the config Snakemake hands the script, not from params,
    so changing a limit reruns nothing. What a stopped attempt of the job sent (its `.running`
    ledger) is carried on in this attempt's ledger first (xlcons.usage.carry_stopped)."""
    output = getattr(smk, "output", None)
    if output is None or "usage" not in output.keys():
        return
    where = "/".join(str(value) for value in getattr(smk, "wildcards", ()))
    job = f"{getattr(smk, 'rule', 'job')} {where}".strip()
    if (stopped := usage.carry_stopped(output.usage)) is not None:
        sent = sum(call["prompt_tokens"] + call["completion_tokens"] for call in stopped.get("calls", []))
        logging.getLogger(__name__).info(
            "%s: its stopped attempt sent %s tokens (%s); counted with this attempt's",
            job,
            f"{sent:,}",
            usage.running_file(output.usage),
        )
    budget.install_from_config(getattr(smk, "config", None) or {}, output.usage, job)


def finish_job(smk) -> None:
    """Call last, once the outputs are written: a job that calls a model (its rule declares the
    output `usage`) writes its usage ledger there (xlcons.usage.write_job_usage)."""
    usage.write_job_usage(smk)
