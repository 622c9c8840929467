"""Every shipped config schedules the jobs of its snapshot (tests/data/dag/<config>.txt, one
line per job: its outputs), no job fewer and no other outputs. The one-table-per-(data set,
model) prompt and answer files are left out of the comparison. Jobs beyond the snapshot are
allowed only for what the snapshots predate: language confusion (its scores, heatmaps and
the language-ID model and word list it fetches), quality estimation of translated sentences
(its QE files, report and LaBSE), and the offline config's second translator; and one output
more of a listed job: the results job's summary (results/summary.md, .csv). A change that
means to change the jobs records the snapshot again and says why in CHANGELOG.md."""

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


# Outputs the snapshots predate on a job they list: the run's summary, written by the results job.
SUMMARY = ("results/summary.csv", "results/summary.md")


def without_summary(job: str) -> str:
    """The results job's outputs without the summary (which it must write); any other job as it is."""
    outputs = job.split(", ")
    if "results/tables/results.parquet" not in outputs:
        return job
    assert set(SUMMARY) <= set(outputs), f"the results job writes no summary: {job}"
    return ", ".join(output for output in outputs if output not in SUMMARY)


def check_against_snapshot(name: str, *args: str) -> None:
    before = (SNAPSHOTS / f"{name}.txt").read_text().splitlines()
    after = [without_summary(job) for job in scheduled_outputs(*args)]
    missing = sorted(set(before) - set(after))
    assert not missing, f"{name}: jobs no longer scheduled (or with other outputs): {missing[:5]}"
    added = sorted(set(after) - set(before))

    def language_confusion(output: str) -> bool:
        fetched = ("glotlid", "lid176", "lcb-words")  # the benchmark's rule: lid.176 and its word list
        return (
            output.endswith(
                ("/language_confusion.parquet", *(f"resources/models/{name}/.xlcons-fetched.json" for name in fetched))
            )
            or "/tables/language_confusion/" in output
        )

    def quality_estimate(output: str) -> bool:  # translator.qe: on by default wherever answers are translated
        return (
            output.endswith((".qe.parquet", "resources/models/LaBSE/.xlcons-fetched.json"))
            or "/tables/translation_quality/" in output
        )

    def second_translator(output: str) -> bool:  # translators: only the offline config lists one
        return name == "offline" and "/by-translator/" in output

    unexpected = [
        job
        for job in added
        if not all(
            language_confusion(output) or quality_estimate(output) or second_translator(output)
            for output in job.split(", ")
        )
    ]
    assert not unexpected, f"{name}: unexpected new jobs {unexpected[:5]}"


@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_a_shipped_config_schedules_what_it_did_before_plus_language_confusion_and_qe(name):
    check_against_snapshot(name, *CONFIGS[name])


def test_the_offline_config_schedules_what_it_did_before_plus_language_confusion_qe_and_a_second_translator(
    offline_models,
):
    check_against_snapshot("offline", "--configfile", "config/offline.yaml")
