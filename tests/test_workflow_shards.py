"""One model's work over many jobs, through the workflow: `generation.shards`,
`evaluators.judge.shards` and `evaluators.information.shards` give the tables of an unsharded
run, each shard job has its own usage ledger, and changing the shard count asks the models only
what is new (after a partial run) or nothing (after a finished one)."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pyarrow.parquet as pq
import yaml

from builders import offline_config
from test_workflow import REPO, job_counts, snakemake

JUDGMENTS = "results/evaluations/multiq/tiny-llm/judgments.parquet"
TABLES = ["results/tables/results.csv", "results/tables/usage.csv"]  # not the reports: a shorter run
# Whatever asks for an answer, answers must not depend on which prompts share a batch: one prompt per batch.
TINY = {"backend": "hf", "hf": {"device": "cpu", "batch_size": 1}, "decoding": {"max_new_tokens": 4}}


def written(workdir: Path, config: dict) -> list[str]:
    """The config written to `workdir`, and the arguments of a run there on it."""
    (workdir / "config.yaml").write_text(yaml.safe_dump(config))
    run = ["--snakefile", str(REPO / "Snakefile"), "--directory", str(workdir)]
    return [*run, "--configfile", str(workdir / "config.yaml"), "--cores", "2"]


def configure(workdir: Path, offline_models, shared_data, languages, shards: int = 1, judge_shards: int = 1):
    config = {
        "models": {"tiny-llm": {"path": str(offline_models["tiny-llm"]), **TINY}},
        "generation": {"shards": shards},
        "evaluators": {
            "judge": {"llm": {"path": str(offline_models["tiny-llm"]), **TINY}, "shards": judge_shards},
            # the judge alone scores the answers: a short run
            **{name: {"datasets": []} for name in ("language_id", "language_confusion", "tokenization")},
        },
        "datasets": {"multiq": {"path": str(shared_data / "multiq"), "languages": languages, "items": {"limit": 3}}},
        "output": {"explorer": False},
    }
    return written(workdir, config)


def ledger(workdir: Path, name: str) -> dict:
    return json.loads((workdir / "results/usage" / name).read_text())


def counted(ledger_files: list[dict], counter: str) -> int:
    return sum(call[counter] for usage in ledger_files for call in usage["calls"])


def test_shards_give_the_unsharded_tables_and_a_new_count_asks_only_the_new_items(
    tmp_path, offline_models, shared_data
):
    sharded, unsharded = tmp_path / "sharded", tmp_path / "unsharded"
    sharded.mkdir()
    unsharded.mkdir()

    # A partial run, one job each: English only.
    first = snakemake(*configure(sharded, offline_models, shared_data, ["en"]), JUDGMENTS)
    assert first.returncode == 0, first.output
    assert counted([ledger(sharded, "generate/multiq/tiny-llm.json")], "requests") == 3

    # Then German too, over 3 generation jobs and 2 judge jobs: only the German items are asked.
    run = configure(sharded, offline_models, shared_data, ["en", "de"], shards=3, judge_shards=2)
    planned = job_counts(snakemake(*run, *TABLES, "-n").stdout)
    assert planned["generate_multiq"] == 3 and planned["generate_multiq_merge"] == 1
    assert planned["judge"] == 2 and planned["judge_merge"] == 1
    second = snakemake(*run, *TABLES)
    assert second.returncode == 0, second.output
    generation = [ledger(sharded, f"generate/multiq/tiny-llm.shard-{k}-of-3.json") for k in (1, 2, 3)]
    assert counted(generation, "requests") == 3, "the 3 German prompts, each asked by its shard"
    assert counted(generation, "cached_requests") == 3, "the 3 English ones, found in the unsharded job's cache"
    judged = [ledger(sharded, f"judge/multiq/tiny-llm.shard-{k}-of-2.json") for k in (1, 2)]
    english_judged = counted([ledger(sharded, "judge/multiq/tiny-llm.json")], "requests")  # the first run's
    assert counted(judged, "cached_requests") == english_judged
    generate_rows = [
        row for row in csv.DictReader((sharded / "results/tables/usage.csv").open()) if row["stage"] == "generate"
    ]
    totals = {name: sum(int(row[name]) for row in generate_rows) for name in ("jobs", "requests", "cached_requests")}
    # usage.csv sums the shard jobs (one with no item left calls no model: its row has no called model)
    assert totals == {"jobs": 3, "requests": 3, "cached_requests": 3}

    # Fewer shards for generation, one judge job: both rerun, and ask their models nothing.
    fourth = snakemake(*configure(sharded, offline_models, shared_data, ["en", "de"], shards=2), *TABLES)
    assert fourth.returncode == 0, fourth.output
    generation = [ledger(sharded, f"generate/multiq/tiny-llm.shard-{k}-of-2.json") for k in (1, 2)]
    assert (counted(generation, "requests"), counted(generation, "cached_requests")) == (0, 6)
    judge = ledger(sharded, "judge/multiq/tiny-llm.json")
    assert counted([judge], "requests") == 0 and counted([judge], "cached_requests") > english_judged

    # The same config in one job each, from scratch: the very same tables.
    third = snakemake(*configure(unsharded, offline_models, shared_data, ["en", "de"]), *TABLES)
    assert third.returncode == 0, third.output
    for table in (
        "responses/multiq/tiny-llm.parquet",
        "responses/multiq/tiny-llm/de.parquet",
        JUDGMENTS.removeprefix("results/"),
    ):
        assert pq.read_table(sharded / "results" / table).equals(pq.read_table(unsharded / "results" / table)), table
    tables = sorted(path.relative_to(unsharded) for path in (unsharded / "results/tables").rglob("*.csv"))
    assert tables
    for table in tables:
        if table.name != "usage.csv":  # wall times
            assert (sharded / table).read_text() == (unsharded / table).read_text(), table


def test_the_information_evaluator_and_the_judge_run_as_shard_jobs_and_merges(tmp_path, offline_models):
    config = offline_config(REPO)
    config["generation"] = {"shards": 2}
    config["evaluators"]["information"] = {**config["evaluators"].get("information", {}), "shards": 3}
    config["evaluators"]["judge"] = {**config["evaluators"]["judge"], "shards": 2}
    (tmp_path / "config.yaml").write_text(yaml.safe_dump(config))
    planned = snakemake("-n", "--forceall", "--configfile", str(tmp_path / "config.yaml"))
    assert planned.returncode == 0, planned.output
    counts = job_counts(planned.stdout)
    models, translators = len(config["models"]), 1 + len(config["translators"])
    for dataset in config["datasets"]:
        assert counts[f"generate_{dataset}"] == 2 * models and counts[f"generate_{dataset}_merge"] == models
    assert counts["information_consistency"] == 3 * models * translators
    assert counts["information_consistency_merge"] == models * translators
    assert counts["judge"] == 2 * models and counts["judge_merge"] == models
    assert (
        "results/by-translator/tiny-nllb-b/evaluations/information/tiny-llm/information_items.shard-3-of-3.parquet"
        in (planned.stdout)
    )
    assert "results/usage/information/information/tiny-llm.shard-2-of-3.json" in planned.stdout


INFORMATION = "results/evaluations/multiq/tiny-llm/information_items.parquet"


def configure_information(workdir: Path, offline_models, shared_data, shards: int):
    """MultiQ's answers translated by the tiny NLLB and checked fact by fact by the tiny LM,
    the information evaluator's job over `shards` jobs (the other evaluators off)."""
    config = {
        "models": {"tiny-llm": {"path": str(offline_models["tiny-llm"]), **TINY}},
        "translator": {
            "model": {"path": str(offline_models["tiny-nllb"])},
            "backend": "transformers",
            "gpus": 0,
            "datasets": ["multiq"],
            "max_new_tokens": 8,
            "degeneration": {"tries": 1},
            "qe": {"model": {"path": str(offline_models["all-minilm-l6-v2"])}, "threshold": 0.05},
        },
        "evaluators": {
            "information": {
                "datasets": ["multiq"],
                "llm": {"path": str(offline_models["tiny-llm"]), **TINY, "decoding": {"max_new_tokens": 6}},
                "shards": shards,
            },
            # language ID still reads the translations (their language is checked): the offline model
            "language_id": {
                "datasets": [],
                "model": {"path": str(offline_models["lid176"])},
                "label_scheme": "lid176",
            },
            **{name: {"datasets": []} for name in ("judge", "language_confusion", "tokenization", "knowledge")},
        },
        "datasets": {"multiq": {"path": str(shared_data / "multiq"), "languages": ["en", "de"], "items": {"limit": 3}}},
        "output": {"explorer": False},
    }
    return written(workdir, config)


def test_the_information_evaluator_over_shard_jobs_gives_the_unsharded_items_facts_and_scores(
    tmp_path, offline_models, shared_data
):
    sharded, unsharded = tmp_path / "sharded", tmp_path / "unsharded"
    sharded.mkdir()
    unsharded.mkdir()
    run = configure_information(sharded, offline_models, shared_data, shards=3)
    planned = job_counts(snakemake(*run, INFORMATION, "-n").stdout)
    assert planned["information_consistency"] == 3 and planned["information_consistency_merge"] == 1
    done = snakemake(*run, INFORMATION, "results/tables/results.csv")
    assert done.returncode == 0, done.output
    shard_ledgers = [ledger(sharded, f"information/multiq/tiny-llm.shard-{k}-of-3.json") for k in (1, 2, 3)]
    assert counted(shard_ledgers, "requests") > 0, "the shards asked the LM for facts and checks"
    again = snakemake(*configure_information(unsharded, offline_models, shared_data, shards=1), INFORMATION,
                      "results/tables/results.csv")  # fmt: skip
    assert again.returncode == 0, again.output
    for name in ("information_items", "information_facts", "information_scores"):
        table = f"results/evaluations/multiq/tiny-llm/{name}.parquet"
        assert pq.read_table(sharded / table).equals(pq.read_table(unsharded / table)), name
    results = "results/tables/results.csv"
    assert (sharded / results).read_text() == (unsharded / results).read_text()
    assert "information" in (sharded / results).read_text()
