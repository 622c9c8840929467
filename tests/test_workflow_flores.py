"""Xing et al. 2024 §5 through the workflow, offline: a tiny FLORES-shaped sample translated by a tiny
model among three languages, scored with chrF, and set against the same model's xSC and xAC on
MAKQA in the same run; the tables and both figures, in the HTML report too."""

from __future__ import annotations

import csv

import pyarrow.parquet as pq
import pytest
import yaml

from builders import write_flores_sample
from test_workflow import REPO, job_counts, snakemake

LANGUAGES = ["en", "de", "zh"]


def read_csv(path):
    with open(path, encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def test_flores_is_translated_scored_and_set_against_makqa_consistency(tmp_path, offline_models, shared_data):
    config = {
        "models": {
            "tiny-llm": {
                "path": str(offline_models["tiny-llm"]),
                "backend": "hf",
                "hf": {"device": "cpu", "batch_size": 8},
                "decoding": {"max_new_tokens": 12},
            },
        },
        "datasets": {
            "flores": {
                "path": str(write_flores_sample(tmp_path / "flores")),
                "languages": LANGUAGES,
                "items": {"limit": 2},
            },
            "makqa": {
                "path": str(shared_data / "makqa"),
                "languages": LANGUAGES,
                "domains": ["geo"],
                "items": {"limit": 3},
            },
        },
        "evaluators": {
            "knowledge": {"embedder": {"path": str(offline_models["all-minilm-l6-v2"])}},
            "language_confusion": {"datasets": []},
        },
        "output": {"bootstrap_resamples": 50, "table_formats": ["csv", "markdown"]},
    }
    (tmp_path / "config.yaml").write_text(yaml.safe_dump(config))
    run = [
        "--snakefile",
        str(REPO / "Snakefile"),
        "--directory",
        str(tmp_path),
        "--configfile",
        str(tmp_path / "config.yaml"),
        "--cores",
        "2",
    ]
    planned = job_counts(snakemake(*run, "-n").output)
    assert planned["translation_ability"] == 1 and planned["translation_ability_report"] == 1
    assert "fetch_dataset" not in planned, "a local copy: nothing to download"
    result = snakemake(*run, timeout=900)
    assert result.returncode == 0, result.output

    prompts = pq.read_table(tmp_path / "results/prompts/flores/de.parquet").to_pylist()
    assert [(row["item_id"], row["category"]) for row in prompts] == [
        ("1:en", "en"),
        ("2:en", "en"),
        ("1:zh", "zh"),
        ("2:zh", "zh"),
    ]
    tables = tmp_path / "results/tables/flores"
    directions = read_csv(tables / "translation_directions.csv")
    assert sorted((row["source"], row["target"]) for row in directions) == sorted(
        (s, t) for s in LANGUAGES for t in LANGUAGES if s != t
    ), "six directions"
    assert all(0.0 <= float(row["chrF"]) <= 100.0 and row["sentences"] == "2" for row in directions)
    languages = {row["lang"]: row for row in read_csv(tables / "translation_languages.csv")}
    assert set(languages) == set(LANGUAGES)
    correlations = {
        (row["scope"], row["consistency"]): row for row in read_csv(tables / "translation_vs_consistency.csv")
    }
    assert correlations[("languages", "xAC")]["n"] == "3" and correlations[("models", "xSC")]["n"] == "1"
    # Figure 2 pair by pair: six directions against the three pairs' xSC, and the pairs themselves.
    assert correlations[("directions", "xSC")]["n"] == "6" and correlations[("pairs", "xSC")]["n"] == "3"
    pairs = read_csv(tables / "translation_pairs.csv")
    assert len(pairs) == 6 and all(row["xSC"] != "" for row in pairs)
    (model,) = read_csv(tables / "translation_models.csv")
    assert model["model"] == "tiny-llm" and 0.0 <= float(model["changed"]) <= 1.0 and model["sentences"] == "12"
    items = pq.read_table(tmp_path / "results/evaluations/flores/tiny-llm/translation_items.parquet").to_pylist()
    assert float(model["changed"]) == pytest.approx(sum(bool(row["changed"]) for row in items) / 12)
    for name in (
        "figure2_translation_tiny-llm.png",
        "figure3_translation_vs_consistency.png",
        "figure2_translation_tiny-llm.pdf",
        "figure2_pairs_vs_consistency.png",
    ):
        assert (tables / name).stat().st_size > 0, name
    results = [
        row for row in read_csv(tmp_path / "results/tables/results.csv") if row["evaluator"] == "translation_ability"
    ]
    assert {(row["lang"], row["metric"]) for row in results} == {
        (lang, metric) for lang in LANGUAGES for metric in ("chrF", "chrF++")
    }
    assert float(next(r for r in results if r["lang"] == "de" and r["metric"] == "chrF")["value"]) == pytest.approx(
        float(languages["de"]["chrF"])
    )

    assert "Nothing to be done" in snakemake(*run, "-n").output, "a finished run is a no-op"
    assert snakemake(*run, "--report", str(tmp_path / "report.html")).returncode == 0
    html = (tmp_path / "report.html").read_text(encoding="utf-8")
    assert "figure2_translation_tiny-llm.png" in html and "figure3_translation_vs_consistency.png" in html
    assert "Xing et al. 2024, Figure 3" in html, "with its caption"
    assert "figure2_pairs_vs_consistency.png" in html and "Xing et al. 2024, Figure 2, cell by cell" in html
