"""The evaluator report (xlcons.reports.evaluator_figures, rule evaluator_report): per evaluator and
data set, the table of its rows in the results table and the files the rule declares, for a user's
set as for a paper's (the figures themselves: tests/test_figures.py)."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import polars as pl
import pyarrow as pa
import pytest

from test_results_empty_values import every_kind_of_results
from xlcons.evaluators.knowledge.tables import KNOWLEDGE_PAIRS
from xlcons.evaluators.registry import EVALUATORS
from xlcons.reports.evaluator_figures import evaluator_rows, evaluator_table, report_outputs, run_evaluator_report
from xlcons.schemas import RESULTS
from xlcons.tables import write_table


def row(model: str, lang: str, metric: str, value: float | None, **fields) -> dict:
    base = {name: None for name in RESULTS.names}
    base |= {"dataset": "mine", "evaluator": "judge", "translator": "", "model": model, "lang": lang}
    base |= {"metric": metric, "kind": "mean", "value": value, "n_items": 4, "n_excluded": 0}
    base |= {"n_resamples": 100, "ci_level": 0.95}
    return base | fields


def test_the_table_has_a_row_per_model_and_language_in_the_configs_order_with_intervals_and_why_empty():
    rows = pl.from_arrow(
        pa.Table.from_pylist(
            [
                row("alpha", "de", "accuracy", 0.5, ci_low=0.25, ci_high=0.75),
                row("zeta", "hi", "accuracy", None, n_items=0, n_excluded=4, excluded_reasons="judge_error:4"),
                row("zeta", "en", "accuracy", 1.0, ci_low=1.0, ci_high=1.0),
                row("zeta", "de", "accuracy@qe_pass", 1.0),  # a QE copy: the translation-quality report's
                row("other", "de", "accuracy", 0.5, dataset="theirs"),  # another data set
            ],
            schema=RESULTS,
        )
    )
    info = EVALUATORS["judge"]
    numbers, display = evaluator_table(evaluator_rows(rows, info, "mine"), info, models=["zeta", "alpha"])
    # models in the config's order; Latin-script languages first (by code), then Indic; a row per
    # (model, language) with a row in the results (zeta's German has the QE copy only)
    assert numbers.select("model", "lang").rows() == [("zeta", "en"), ("zeta", "hi"), ("alpha", "de")]
    assert numbers.columns == [
        "model",
        "lang",
        "accuracy",
        "accuracy_ci_low",
        "accuracy_ci_high",
        "accuracy_n_items",
        "without_value",
    ]
    alpha = display.filter(pl.col("model") == "alpha").row(0, named=True)
    assert alpha["accuracy"] == "0.500 [0.250, 0.750]" and alpha["accuracy n"] == 4
    hindi = display.filter(pl.col("lang") == "hi").row(0, named=True)
    assert hindi["accuracy"] is None and hindi["without value"] == "accuracy: judge_error:4"


def test_knowledges_table_holds_its_corpus_scores_under_language_all():
    results = every_kind_of_results()
    info = EVALUATORS["knowledge"]
    dataset = results.filter(pl.col("evaluator") == "knowledge")["dataset"][0]
    numbers, display = evaluator_table(evaluator_rows(results, info, dataset), info)
    assert set(numbers["lang"].to_list()) == {"all"}
    assert numbers.columns[2:4] == ["xSC", "xSC_ci_low"]  # the figure metrics first
    assert "xC" in numbers.columns and "xC n" in display.columns


@pytest.mark.parametrize("name", ["tokenization", "knowledge", "information"])
def test_the_rule_writes_every_file_it_declares(tmp_path, name):
    results = every_kind_of_results()
    info = EVALUATORS[name]
    dataset = results.filter(pl.col("evaluator") == info.rows_evaluator)["dataset"][0]
    path = write_table(results.to_arrow(), tmp_path / "results.parquet", RESULTS)
    pairs = []
    if info.pair_figure is not None:
        cells = [
            {"dataset": dataset, "model": "m", "variant": "few_shot", "metric": "xSC", "domain": "all"}
            | {"lang_i": i, "lang_j": j, "value": 0.5, "n_items": 3}
            for i, j in (("en", "de"), ("de", "en"))
        ]
        table = pa.Table.from_pylist(cells, schema=KNOWLEDGE_PAIRS)
        pairs = [write_table(table, tmp_path / "pairs.parquet", KNOWLEDGE_PAIRS)]
    out = tmp_path / "evaluators" / name / dataset
    written = run_evaluator_report(
        path,
        name,
        dataset,
        out,
        table_formats=["csv", "markdown", "latex"],
        figure_formats=["png"],
        models=["m"],
        translator="",
        pair_files=pairs,
    )
    assert sorted(written) == sorted(report_outputs(out, ["csv", "markdown", "latex"], ["png"]))
    assert all(path.stat().st_size > 0 for path in written)
    table = pl.read_csv(out / "table.csv")
    assert table.height and set(info.figure_metrics) & set(table.columns)
