"""Each evaluator's per-item table becomes ITEM_SCORES rows by a written rule; the aggregation
job joins them into the results table, the group tables and the comparisons."""

from __future__ import annotations

import polars as pl
import pyarrow as pa
import pytest

from xlcons.reports import item_scores as adapters
from xlcons.reports.aggregate import run_results_job
from xlcons.schemas import EMPATHY_ITEMS, FIDELITY, INFORMATION_ITEMS, ITEM_SCORES, JUDGMENTS, KNOWLEDGE_SCORES, RESULTS
from xlcons.tables import write_table

KEY = {"dataset": "multiq", "model": "m"}


def table(schema, rows, **defaults):
    fields = {name: None for name in schema.names}
    return pa.Table.from_pylist([{**fields, **defaults, **row} for row in rows], schema=schema)


def by_key(frame: pl.DataFrame) -> dict:
    return {(r["item_id"], r["lang"], r["metric"]): (r["value"], r["status"]) for r in frame.to_dicts()}


def test_fidelity_counts_the_identified_answers_and_keeps_the_exclusion_reason():
    rows = [{"item_id": "1", "lang": "de", "fidelity": "same"}, {"item_id": "2", "lang": "de", "fidelity": "english"},
            {"item_id": "3", "lang": "de", "fidelity": "excluded", "excluded_reason": "no_answer"}]
    scores = by_key(adapters.from_fidelity(table(FIDELITY, rows, response_chars=5, **KEY)))
    assert scores[("1", "de", "fidelity_same")] == (1.0, "ok") and scores[("1", "de", "fidelity_english")] == (0.0, "ok")
    assert scores[("2", "de", "fidelity_same")] == (0.0, "ok") and scores[("2", "de", "fidelity_english")] == (1.0, "ok")
    assert scores[("3", "de", "fidelity_same")] == (None, "no_answer")


def test_accuracy_counts_everything_but_yes_as_wrong():
    rows = [{"item_id": str(i), "lang": "de", "verdict": v} for i, v in enumerate(["yes", "no", "unparseable", "no_answer"])]
    frame = adapters.from_judgments(table(JUDGMENTS, rows, judge_model="j", **KEY))
    assert frame["value"].to_list() == [1.0, 0.0, 0.0, 0.0] and set(frame["status"]) == {"ok"}


def test_information_rows_split_into_the_translation_and_the_translationese_evaluator():
    rows = [
        {"item_id": "1", "lang": "de", "comparison": "translation", "precision": 0.5, "recall": 1.0, "f1": 2 / 3},
        {"item_id": "2", "lang": "de", "comparison": "translation", "excluded_reason": "no_facts"},
        {"item_id": "1", "lang": "hi", "comparison": "round_trip", "precision": 1.0, "recall": 0.5, "f1": 2 / 3},
    ]
    frame = adapters.from_information(table(INFORMATION_ITEMS, rows, dataset="information", model="m", evaluator_model="q",
                                            translation_path="x", english_status="facts", translated_status="facts"))
    assert frame.columns == ITEM_SCORES.names
    got = {(r["evaluator"], r["item_id"], r["metric"]): (r["value"], r["status"]) for r in frame.to_dicts()}
    assert got[("information", "1", "recall")] == (1.0, "ok")
    assert got[("information", "2", "precision")] == (None, "no_facts")
    assert got[("translationese", "1", "precision")] == (1.0, "ok")


def test_empathy_gives_consistency_and_per_mechanism_agreement():
    rows = [
        {"item_id": "a", "lang": "de", "status": "ok", "equal": False, "er_agree": True, "ip_agree": False, "ex_agree": True},
        {"item_id": "b", "lang": "de", "status": "excluded", "excluded_reason": "no_answer"},
    ]
    scores = by_key(adapters.from_empathy(table(EMPATHY_ITEMS, rows, dataset="empathy", model="m", classifier="tfidf")))
    assert [scores[("a", "de", m)][0] for m in ("consistency", "ER", "IP", "EX")] == [0.0, 1.0, 0.0, 1.0]
    assert scores[("b", "de", "consistency")] == (None, "no_answer")


def test_knowledge_scores_enter_as_corpus_rows_without_an_interval():
    rows = [{"variant": "few_shot", "metric": "xAC", "domain": "all", "value": 0.49, "n_items": 10, "n_excluded": 1, "n_empty": 0},
            {"variant": "few_shot", "metric": "xAC", "domain": "geo", "value": 0.3, "n_items": 5, "n_excluded": 0, "n_empty": 0}]
    frame = adapters.knowledge_results(table(KNOWLEDGE_SCORES, rows, dataset="makqa", model="m"))
    assert frame.to_dicts() == [{**frame.to_dicts()[0], "metric": "xAC", "kind": "corpus", "value": 0.49, "lang": "all", "ci_low": None}]


def test_the_results_job_writes_the_long_table_groups_and_comparisons(tmp_path):
    def judged(model, verdicts):
        rows = [{"item_id": str(i), "lang": lang, "verdict": v} for lang in ("de", "hi") for i, v in enumerate(verdicts)]
        path = tmp_path / f"{model}.parquet"
        write_table(table(JUDGMENTS, rows, dataset="multiq", model=model, judge_model="j"), path, JUDGMENTS)
        return path

    files = [judged("a", ["yes", "yes", "no", "yes"]), judged("b", ["no", "no", "no", "yes"])]
    written = run_results_job({"judgments": files}, tmp_path / "out", n_resamples=100, seed=1,
                              training_languages={"a": ["de"], "b": None}, table_formats=["csv"], comparisons=[["a", "b"]])
    results = pl.read_parquet(tmp_path / "out/results.parquet")
    assert results.columns == RESULTS.names
    row = results.filter((pl.col("model") == "a") & (pl.col("lang") == "de")).to_dicts()[0]
    assert row["value"] == pytest.approx(0.75) and row["n_items"] == 4 and row["ci_low"] <= 0.75 <= row["ci_high"]
    groups = pl.read_parquet(tmp_path / "out/groups/groups.parquet")
    inside = groups.filter((pl.col("model") == "a") & (pl.col("group") == "In")).to_dicts()[0]
    assert inside["value"] == pytest.approx(0.75) and inside["languages"] == "de"
    assert groups.filter((pl.col("model") == "b") & (pl.col("group") == "In"))["value"].to_list() == [None]
    pooled = pl.read_parquet(tmp_path / "out/comparisons.parquet").filter(pl.col("lang") == "pooled").to_dicts()[0]
    assert pooled["difference"] == pytest.approx(0.5)
    assert pl.read_parquet(tmp_path / "out/item_scores.parquet").height == 16
    assert all(path.exists() for path in written)
    assert pl.read_parquet(tmp_path / "out/item_scores.parquet").columns == ITEM_SCORES.names
