"""Knowledge consistency through the workflow: Table 6 from the released GPT-3.5 outputs, and MAKQA offline."""

from __future__ import annotations

import csv
import math

import pyarrow.parquet as pq
import pytest
import yaml

from builders import offline_language_confusion
from local_server import LocalServer
from test_workflow import REPO, snakemake
from xlcons.data_sources import DATA_SOURCES
from xlcons.evaluators.knowledge.tables import KNOWLEDGE_SCORES


def read_csv(path):
    with open(path) as handle:
        return list(csv.DictReader(handle))


def value(cell: str) -> float:
    return float(cell) if cell not in ("", None) else math.nan


def test_released_gpt35_outputs_reproduce_table6(tmp_path, shared_data):
    """The reproduction command of docs/knowledge.md on a fresh machine: MAKQA and GPT-3.5's
    released outputs are fetched (from a local mirror of the paper's repository, the upstream
    layout) and scored, here without LaBSE, so xSC and xC stay missing."""
    with LocalServer(tmp_path / "served") as server:
        mirror = server.mirror(DATA_SOURCES["makqa"], shared_data)
        server.mirror(DATA_SOURCES["makqa-released-gpt35"], shared_data)
        override = tmp_path / "here.yaml"
        override.write_text(
            yaml.safe_dump(
                {"datasets": {"makqa": {"source_url": mirror}}, "evaluators": {"knowledge": {"embedder": None}}}
            )
        )
        result = snakemake(
            "--snakefile",
            str(REPO / "Snakefile"),
            "--directory",
            str(tmp_path),
            "--cores",
            "2",
            "--configfile",
            str(REPO / "config/paper/xing2024-released.yaml"),
            str(override),
            timeout=600,
        )
    assert result.returncode == 0, result.output
    assert sorted(server.requests) == sorted(
        server.path_of(source, f)
        for source in (DATA_SOURCES["makqa"], DATA_SOURCES["makqa-released-gpt35"])
        for f in source.files
    ), "each file once, from the upstream paths"
    tables = tmp_path / "results" / "tables" / "makqa"
    (row,) = read_csv(tables / "table6_consistency.csv")
    assert row["model"] == "gpt35"
    assert value(row["xAC"]) == pytest.approx(0.4893, abs=0.0005)
    assert value(row["xTC"]) == pytest.approx(0.5078, abs=0.0005)
    assert math.isnan(value(row["xSC"])) and math.isnan(value(row["xC"])), "missing, not zero"
    domains = {r["metric"]: r for r in read_csv(tables / "table4_domains.csv")}["xAC"]
    published = {
        "geo": 0.5403,
        "history": 0.5112,
        "literature": 0.5561,
        "sport_club": 0.3903,
        "science": 0.3807,
        "movie": 0.4444,
    }
    assert {d: round(value(domains[d]), 4) for d in published} == pytest.approx(published, abs=0.0005)
    versus = {r["metric"]: r for r in read_csv(tables / "table6_vs_published.csv")}
    assert value(versus["xAC"]["published"]) == 0.489 and abs(value(versus["xAC"]["difference"])) < 0.001
    assert (tables / "figure2_pairs_gpt35.png").stat().st_size > 0
    # The released answers became the model's responses, 12 languages, nothing generated.
    assert pq.read_table(tmp_path / "results/responses/makqa/gpt35/el.parquet").num_rows == 2027


def test_a_folder_of_released_model_folders_is_scored_in_one_run_beside_each_models_published_values(
    tmp_path, shared_data
):
    """Xing et al. 2024's `result/` layout: one folder per model. Here two folders of the same released
    GPT-3.5 outputs, named as two of the paper's models, each scored under its folder's name."""
    released = tmp_path / "result"
    released.mkdir()
    for name in ("gpt35", "mistral-7b"):
        (released / name).symlink_to(shared_data / "makqa" / "result_gpt35", target_is_directory=True)
    override = tmp_path / "here.yaml"
    override.write_text(
        yaml.safe_dump(
            {
                "datasets": {"makqa": {"path": str(shared_data / "makqa"), "domains": ["geo", "timeliness"]}},
                "evaluators": {"knowledge": {"embedder": None}},
            }
        )
    )
    result = snakemake(  # the command of docs/knowledge.md
        "--snakefile",
        str(REPO / "Snakefile"),
        "--directory",
        str(tmp_path),
        "--cores",
        "2",
        "--configfile",
        str(REPO / "config/paper/xing2024-released.yaml"),
        str(override),
        "--config",
        f"released_outputs={released}",
        "released_model=",
        timeout=600,
    )
    assert result.returncode == 0, result.output
    assert "fetch_dataset" not in result.output, "local folders for all: nothing to download"
    tables = tmp_path / "results" / "tables" / "makqa"
    rows = {row["model"]: row for row in read_csv(tables / "table6_consistency.csv")}
    assert sorted(rows) == ["gpt35", "mistral-7b"] and rows["gpt35"]["xAC"] == rows["mistral-7b"]["xAC"]
    versus = {(row["model"], row["metric"]): row for row in read_csv(tables / "table6_vs_published.csv")}
    assert (
        value(versus[("gpt35", "xAC")]["published"]) == 0.489
        and value(versus[("mistral-7b", "xAC")]["published"]) == 0.245
    )
    assert value(versus[("mistral-7b", "xTC")]["published"]) == 0.349


def test_makqa_generates_few_shot_and_scores_offline(tmp_path, offline_models, shared_data):
    config = {
        "models": {
            "smollm2-135m": {
                "path": str(offline_models["smollm2-135m-instruct"]),
                "backend": "hf",
                "hf": {"device": "cpu", "batch_size": 4},
                "decoding": {"max_new_tokens": 12},
            }
        },
        "evaluators": {
            "knowledge": {"embedder": {"path": str(offline_models["all-minilm-l6-v2"])}},
            # language confusion runs on every set by default: with the offline LID model
            "language_id": {"model": {"path": str(offline_models["lid176"])}, "label_scheme": "lid176"},
            "language_confusion": offline_language_confusion(offline_models),
        },
        "datasets": {
            "makqa": {
                "path": str(shared_data / "makqa"),
                "languages": ["en", "de"],
                "domains": ["geo", "timeliness"],
                "items": {"limit": 2},
            }
        },
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
    result = snakemake(*run, timeout=900)
    assert result.returncode == 0, result.output
    prompt = pq.read_table(tmp_path / "results/prompts/makqa/de.parquet").to_pylist()[0]
    assert prompt["item_id"].startswith("geo/") and prompt["references"], "gold answers travel with the prompt"
    assert prompt["prompt"].count("\n\n") >= 5, "five in-context examples before the question"
    scores = pq.read_table(tmp_path / "results/evaluations/makqa/smollm2-135m/knowledge_scores.parquet")
    assert scores.schema.names == KNOWLEDGE_SCORES.names
    overall = {row["metric"]: row["value"] for row in scores.to_pylist() if row["domain"] == "all"}
    assert 0.0 <= overall["xSC"] <= 1.0, "an embedder was configured, so xSC is computed"
    assert (tmp_path / "results/tables/makqa/table6_consistency.md").exists()
