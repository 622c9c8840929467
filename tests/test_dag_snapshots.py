"""Every shipped config schedules the jobs it scheduled before data sets, evaluators and
backends became registry entries (tests/data/dag/*.txt, recorded from the workflow before
the change): the same jobs with the same outputs. The one addition is language confusion,
which runs on every data set by default (its heatmaps, and, where nothing else used it, the
language-ID model it loads: lid.176 and the benchmark's English word list since it follows
the Language Confusion Benchmark's rule, so xing2024-knowledge, where only language
confusion used GlotLID, no longer fetches GlotLID: that line was taken out of its snapshot).
Beside the per-language files, the prompts of a data set and the
answers of a model also come as one table each (what the evaluators read); the snapshots,
recorded before those tables, are compared without them. xing2024-released's snapshot was
recorded again when it began to fetch and score GPT-3.5's released outputs by itself
(`released_model: gpt35`; before, it scheduled nothing without `--config released_outputs=`).
The knowledge report's line of every snapshot was recorded again when it began to write
Xing et al. 2024's Table 5 (`table5_variants`), and the MultiQ report's when it began to draw
Holtermann et al. 2024's Figure 5 (`figure5_accuracy_by_language`) and its other-language tables;
xing2024-knowledge's whole snapshot when it came to list all 11 models of Xing et al. 2024's Table 6,
and again when it came to translate FLORES-200 (Xing et al. 2024 §5: the `flores` prompts, answers,
chrF jobs and their report); its FLORES report's line again when that report began to write
the per-model table with the share of answers the extraction changed (`translation_models`)
and Xing et al. 2024's Figure 2 pair by pair (`translation_pairs`, `figure2_pairs_vs_consistency`).
The second addition is the quality estimation of translated
sentences (translator.qe, on by default): a QE job per translated (data set, model), its
report, and the LaBSE fetch where nothing else used it."""

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
