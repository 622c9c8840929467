"""Every shipped config schedules exactly the jobs of its snapshot (tests/data/dag/<config>.txt,
one line per job: its outputs), no job fewer, none more and no other outputs. The
one-table-per-(data set, model) prompt and answer files are left out of the comparison. A change
that means to change the jobs records the snapshots again (``python tests/test_dag_snapshots.py``,
which needs the offline models for `offline`) and says why in CHANGELOG.md."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
SNAPSHOTS = Path(__file__).parent / "data" / "dag"
CONFIGS = {
    "default": [],
    **{
        path.stem: ["--configfile", str(path.relative_to(REPO))]
        for path in sorted((REPO / "config" / "paper").glob("*.yaml"))
    },
}


# The one-table-per-(data set[, model]) files: results/prompts/<d>.parquet, results/responses/<d>/<m>.parquet.
TABLES = re.compile(r"results/(prompts/[^/]+|responses/[^/]+/[^/]+)\.parquet")


def scheduled_outputs(*args: str) -> list[str]:
    """One line per job of a forced dry run: its outputs, sorted and comma-joined."""
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    run = subprocess.run(
        [sys.executable, "-m", "snakemake", "-n", "--forceall", *args],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    jobs, in_job = [], False
    for line in run.stdout.splitlines():
        if re.match(r"^(?:local)?rule \w+:", line):
            in_job = True
        match = re.match(r"^\s+output: (.*)$", line)
        if match and in_job:
            outputs = [path for path in match.group(1).split(", ") if not TABLES.fullmatch(path)]
            if outputs:
                jobs.append(", ".join(sorted(outputs)))
    return sorted(jobs)


def check_against_snapshot(name: str, *args: str) -> None:
    before = (SNAPSHOTS / f"{name}.txt").read_text().splitlines()
    after = scheduled_outputs(*args)
    missing = sorted(set(before) - set(after))
    assert not missing, f"{name}: jobs no longer scheduled (or with other outputs): {missing[:5]}"
    added = sorted(set(after) - set(before))
    assert not added, f"{name}: new jobs (or other outputs), not in the snapshot: {added[:5]}"


@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_a_shipped_config_schedules_the_jobs_of_its_snapshot(name):
    check_against_snapshot(name, *CONFIGS[name])


def test_the_offline_config_schedules_the_jobs_of_its_snapshot(offline_models):
    check_against_snapshot("offline", "--configfile", "config/offline.yaml")


def record() -> None:
    """Write every snapshot from the jobs the configs schedule now."""
    for name, args in {**CONFIGS, "offline": ["--configfile", "config/offline.yaml"]}.items():
        (SNAPSHOTS / f"{name}.txt").write_text("".join(f"{job}\n" for job in scheduled_outputs(*args)))


if __name__ == "__main__":
    record()
