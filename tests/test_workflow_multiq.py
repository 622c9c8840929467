"""MultiQ end to end through the workflow, on the offline config: generate, identify, judge, report."""

from __future__ import annotations

import csv

import pyarrow.parquet as pq
import yaml

from builders import offline_config
from test_workflow import REPO, snakemake
from xlcons.evaluators.fidelity import FIDELITY
from xlcons.evaluators.judge_tables import JUDGMENTS
from xlcons.evaluators.tokenization_tables import TOKENIZATION


def offline_subset(workdir, shared_data, languages, limit):
    """config/offline.yaml with absolute paths, MultiQ only, a few items."""
    config = offline_config(REPO)
    config["datasets"] = {
        "multiq": {"path": str(shared_data / "multiq"), "languages": languages, "items": {"limit": limit}}
    }
    assert "multiq" in config["translator"]["datasets"]
    (workdir / "config.yaml").write_text(yaml.safe_dump(config))
    return [
        "--snakefile",
        str(REPO / "Snakefile"),
        "--directory",
        str(workdir),
        "--configfile",
        str(workdir / "config.yaml"),
        "--cores",
        "2",
    ]


def test_multiq_runs_end_to_end_for_smollm2_and_the_tiny_model(tmp_path, offline_models, shared_data):
    run = offline_subset(tmp_path, shared_data, ["en", "de", "zh-CN"], 2)
    result = snakemake(*run, timeout=900)
    assert result.returncode == 0, result.output
    evaluations = tmp_path / "results" / "evaluations" / "multiq"
    for model in ("tiny-llm", "smollm2-135m"):
        fidelity = pq.read_table(evaluations / model / "fidelity.parquet")
        judgments = pq.read_table(evaluations / model / "judgments.parquet")
        assert fidelity.schema.names == FIDELITY.names and fidelity.num_rows == 6
        assert judgments.schema.names == JUDGMENTS.names and judgments.num_rows == 6
        assert set(judgments["verdict"].to_pylist()) <= {"yes", "no", "unparseable", "no_answer"}
        assert pq.read_table(evaluations / model / "tokenization.parquet").schema.names == TOKENIZATION.names
    tables = tmp_path / "results" / "tables" / "multiq"
    with open(tables / "table3_accuracy.csv") as handle:
        assert sorted(row["model"] for row in csv.DictReader(handle)) == ["smollm2-135m", "tiny-llm"]
    for name in (
        "figure3_fidelity.png",
        "figure4_language_matrix_smollm2-135m.png",
        "table5_accuracy_by_tokenization.md",
    ):
        assert (tables / name).stat().st_size > 0
    # SmolLM2 answers English prompts in English: fidelity is 'same' for them.
    english = [
        row
        for row in pq.read_table(evaluations / "smollm2-135m" / "fidelity.parquet").to_pylist()
        if row["lang"] == "en"
    ]
    assert {row["fidelity"] for row in english} == {"same"}
    # The answers are translated to English too (translator.datasets includes multiq offline).
    for model in ("tiny-llm", "smollm2-135m"):
        translations = pq.read_table(tmp_path / "results" / "translations" / "multiq" / model / "de.parquet")
        assert translations.num_rows == 2 and "translation_path" in translations.schema.names
    english = pq.read_table(tmp_path / "results/translations/multiq/smollm2-135m/en.parquet").to_pylist()
    assert {row["translation_path"] for row in english} == {"passthrough_english"}
    assert [row["translation"] for row in english] == [row["response"] for row in english]
    assert "Nothing to be done" in snakemake(*run, "-n").output
