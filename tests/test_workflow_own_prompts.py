"""The README's "your own prompts" quick start, end to end: config/examples/own-prompts.yaml
(a CSV of parallel prompts in three languages, one item with a gold answer, and a text file
of English prompts to translate) on the offline models, through every evaluator that fits."""

from __future__ import annotations

import csv

import pyarrow.parquet as pq
import yaml

from builders import offline_config
from test_config import reversed_keys
from test_workflow import REPO, job_counts, snakemake

EXAMPLE = REPO / "config" / "examples" / "own-prompts.yaml"


def absolute_example(workdir):
    """The example config with its repository-relative paths made absolute, run in `workdir`."""
    config = yaml.safe_load(EXAMPLE.read_text())
    for spec in config["datasets"].values():
        spec["path"] = str(REPO / spec["path"])
    offline = offline_config(REPO)  # resources/ paths made absolute the same way
    for section in (
        config["models"]["smollm2-135m"],
        config["translator"]["model"],
        config["evaluators"]["language_id"]["model"],
        config["evaluators"]["language_confusion"]["model"],
        config["evaluators"]["language_confusion"]["words"],
        config["evaluators"]["information"]["llm"],
        config["evaluators"]["knowledge"]["embedder"],
        config["translator"]["qe"]["model"],
    ):
        section["path"] = str(REPO / section["path"]) if not section["path"].startswith("/") else section["path"]
    assert offline["models"]["smollm2-135m"]["path"] == config["models"]["smollm2-135m"]["path"]
    path = workdir / "config.yaml"
    path.write_text(yaml.safe_dump(config, allow_unicode=True))
    return [
        "--snakefile",
        str(REPO / "Snakefile"),
        "--directory",
        str(workdir),
        "--configfile",
        str(path),
        "--cores",
        "2",
    ]


def results_rows(workdir):
    with open(workdir / "results" / "tables" / "results.csv", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def test_the_own_prompts_example_runs_end_to_end_and_lands_in_the_results_table(tmp_path, offline_models):
    run = absolute_example(tmp_path)
    result = snakemake(*run, timeout=1200)
    assert result.returncode == 0, result.output[-6000:]

    rows = results_rows(tmp_path)
    clinic = {(row["evaluator"], row["metric"]) for row in rows if row["dataset"] == "clinic_qa"}
    for expected in [
        ("fidelity", "fidelity_same"),
        ("information", "F"),
        ("language_confusion", "line_pass"),
        ("language_confusion", "lcpr"),
        ("knowledge", "xSC"),
    ]:
        assert expected in clinic, f"clinic_qa lacks {expected}"
    assert {row["lang"] for row in rows if row["dataset"] == "clinic_qa" and row["evaluator"] == "fidelity"} == {
        "en",
        "de",
        "hi",
    }
    # Hindi is written in Devanagari: its answers are checked for English words; German's are not.
    word = {row["lang"]: row for row in rows if row["dataset"] == "clinic_qa" and row["metric"] == "word_pass"}
    assert (
        word["de"]["value"] == ""
        and int(word["de"]["n_excluded"]) == 6
        and "latin_script" in word["de"]["excluded_reasons"]
    )
    # (the benchmark's WPR: over the Hindi answers without a line-level error, which may be none of them)
    assert "latin_script" not in word["hi"]["excluded_reasons"]
    assert word["hi"]["value"] != "" or "line_error" in word["hi"]["excluded_reasons"]

    # The English prompts were translated into German and Hindi, with a review file each, and scored.
    prompts = pq.read_table(tmp_path / "results/prompts/my_english_prompts/de.parquet").to_pylist()
    assert [row["item_id"] for row in prompts] == ["1", "2", "3"] and {row["source_lang"] for row in prompts} == {"en"}
    assert (tmp_path / "results/prompts/my_english_prompts/review/hi.tsv").stat().st_size > 0
    mine = {(row["evaluator"], row["lang"]) for row in rows if row["dataset"] == "my_english_prompts"}
    assert {("information", "de"), ("information", "hi"), ("language_confusion", "hi")} <= mine
    # The data set's system prompt reached the model.
    responses = pq.read_table(tmp_path / "results/responses/my_english_prompts/smollm2-135m/en.parquet")
    assert responses.num_rows == 3

    # The run's summary: a section per data set, the headline metric of each evaluator that scored it.
    summary = (tmp_path / "results/summary.md").read_text(encoding="utf-8")
    assert "## clinic_qa" in summary and "## my_english_prompts" in summary
    assert "| fidelity | fidelity_same | smollm2-135m |" in summary and "| knowledge | xSC | smollm2-135m |" in summary
    # It opens the HTML report (its category sorts first), with its caption.
    report = snakemake(*run, "--report", str(tmp_path / "report.html"))
    assert report.returncode == 0, report.output[-3000:]
    html = (tmp_path / "report.html").read_text(encoding="utf-8")
    assert "At a glance" in html and "The run at a glance" in html and "summary.md" in html

    assert "Nothing to be done" in snakemake(*run, "-n").output, "a finished run is a no-op"

    # Every key of the config in another order (the models and data sets themselves keep
    # theirs, the order of the tables), and a checkout that touches a rule script (the default
    # rerun triggers leave out `code`): still nothing to do.
    config = yaml.safe_load((tmp_path / "config.yaml").read_text())
    reordered = reversed_keys(config)
    for section in ("models", "datasets"):
        reordered[section] = {name: reordered[section][name] for name in config[section]}
    (tmp_path / "config.yaml").write_text(yaml.safe_dump(reordered, allow_unicode=True, sort_keys=False))
    (REPO / "workflow_scripts" / "generate.py").touch()
    idle = snakemake(*run, "-n")
    assert "Nothing to be done" in idle.output, idle.output[-3000:]

    # Reporting-only model metadata reruns the tables, nothing upstream of them.
    config = yaml.safe_load((tmp_path / "config.yaml").read_text())
    config["models"]["smollm2-135m"]["training_languages"] = ["en"]
    (tmp_path / "config.yaml").write_text(yaml.safe_dump(config, allow_unicode=True))
    planned = snakemake(*run, "-n")
    reports = {
        "results",
        "language_confusion_report",
        "translate_then_evaluate_report",
        "translation_quality_report",
        "explorer",
        "all",
    }
    assert set(job_counts(planned.stdout)) <= reports, planned.stdout[-3000:]
