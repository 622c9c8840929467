"""pytest fixtures for the SLURM tests: a session-wide local cluster, and per-test clean-up.

Import them into a test module (`from slurm.fixtures import slurm_cluster, ...`). The
cluster fixture starts the cluster only when it is not running and stops only what it
started. Where SLURM cannot be had (not root, no apt, a foreign slurm.conf) the tests
are skipped, except in CI (CI=1 or XLCONS_REQUIRE_SLURM=1), where they fail.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from . import cluster


@pytest.fixture(scope="session")
def slurm_cluster():
    try:
        record, unavailable = cluster.start(), None
    except cluster.ClusterUnavailable as exc:
        record, unavailable = None, f"no local SLURM cluster: {exc}"
    if unavailable and cluster.required():
        pytest.fail(f"{unavailable} (required here: CI or XLCONS_REQUIRE_SLURM is set)", pytrace=False)
    if unavailable:
        pytest.skip(unavailable)
    if record.daemons:
        print(f"\nslurm: started {', '.join(record.daemons)} in {record.seconds} s (installed: {record.installed})")
    try:
        yield record
    finally:
        cluster.stop(record)


def jobs_under(directory: Path) -> list[str]:
    """Ids of the queued or running SLURM jobs whose working directory is `directory`."""
    out = subprocess.run(["squeue", "-h", "-o", "%i %Z"], capture_output=True, text=True, timeout=10).stdout
    root = str(directory.resolve())
    return [line.split()[0] for line in out.splitlines() if len(line.split()) == 2 and line.split()[1].startswith(root)]


@pytest.fixture()
def slurm_workdir(slurm_cluster, tmp_path):
    """A working directory whose SLURM jobs are cancelled when the test ends."""
    yield tmp_path
    leftover = jobs_under(tmp_path)
    if leftover:
        subprocess.run(["scancel", *leftover], capture_output=True, timeout=10)
