"""Per-item scores to the results table (xlcons.reports.results): means, exclusions, bootstrap CIs, derived F.

Every expected number is worked out by hand in the comments, or recomputed independently
(a plain loop over the same resample indices; scipy's percentile bootstrap).
"""

from __future__ import annotations

import numpy as np
import polars as pl
import pyarrow as pa
import pytest
from scipy import stats

from xlcons.derived_metrics import DerivedMetric, harmonic_mean
from xlcons.evaluators.information.derived import INFORMATION_F
from xlcons.evaluators.registry import QE_INPUT
from xlcons.reports.aggregate import rate_metrics
from xlcons.reports.bootstrap import cell_rng
from xlcons.reports.results import (
    is_rate,
    read_results,
    results_table,
    write_results,
)
from xlcons.schemas import ITEM_SCORES, RESULTS
from xlcons.tables import SchemaError, read_table


def scores(rows, dataset="d", evaluator="information", model="m") -> pl.DataFrame:
    """ITEM_SCORES from (lang, item_id, metric, value or a reason string)."""
    records = []
    for lang, item, metric, value in rows:
        excluded = isinstance(value, str)
        records.append(
            {
                "dataset": dataset,
                "evaluator": evaluator,
                "model": model,
                "item_id": item,
                "lang": lang,
                "metric": metric,
                "value": None if excluded else float(value),
                "status": value if excluded else "ok",
            }
        )
    return pl.from_arrow(pa.Table.from_pylist(records, schema=ITEM_SCORES))


def row(table: pl.DataFrame, **key) -> dict:
    found = table.filter(**key)
    assert found.height == 1, found
    return found.row(0, named=True)


def test_item_means_and_exclusions_with_reasons():
    # de: 1, 0, 1, 1 scored -> 0.75; two no_answer and one unparseable excluded.
    table = results_table(
        scores(
            [
                ("de", "a", "accuracy", 1),
                ("de", "b", "accuracy", 0),
                ("de", "c", "accuracy", 1),
                ("de", "d", "accuracy", 1),
                ("de", "e", "accuracy", "no_answer"),
                ("de", "f", "accuracy", "unparseable"),
                ("de", "g", "accuracy", "no_answer"),
                ("fr", "a", "accuracy", 0.5),
            ]
        ),
        n_resamples=50,
    )
    de = row(table, lang="de")
    assert de["value"] == pytest.approx(0.75)
    assert (de["n_items"], de["n_excluded"]) == (4, 3)
    assert de["excluded_reasons"] == "no_answer:2; unparseable:1"  # most frequent first
    assert de["kind"] == "mean" and de["n_resamples"] == 50 and de["ci_level"] == 0.95
    assert de["ci_low"] <= 0.75 <= de["ci_high"]
    fr = row(table, lang="fr")
    assert fr["value"] == 0.5 and fr["excluded_reasons"] is None and fr["n_excluded"] == 0
    assert fr["ci_low"] is None and fr["ci_high"] is None  # one item: no interval


def test_all_items_excluded_gives_null_value_not_nan():
    table = results_table(scores([("de", "a", "f1", "no_facts"), ("de", "b", "f1", "empty")]), n_resamples=10)
    de = row(table, lang="de")
    assert de["value"] is None and de["ci_low"] is None
    assert de["n_items"] == 0 and de["n_excluded"] == 2 and de["excluded_reasons"] == "empty:1; no_facts:1"


def test_zero_resamples_gives_no_interval():
    table = results_table(scores([("de", str(i), "f1", i / 10) for i in range(10)]), n_resamples=0)
    de = row(table, lang="de")
    assert de["value"] == pytest.approx(0.45) and de["ci_low"] is None and de["n_resamples"] == 0


def test_bootstrap_interval_matches_a_plain_loop_with_the_same_draws():
    values = np.random.default_rng(7).beta(2, 3, size=23)
    table = results_table(
        scores([("ja", f"q{i:02d}", "recall", v) for i, v in enumerate(values)]), n_resamples=400, seed=11
    )
    ja = row(table, lang="ja")
    # The documented random-number use: the row's generator, one integers() call, items sorted by id.
    rng = cell_rng(11, "d", "information", "m", "ja", "recall")
    indices = rng.integers(0, 23, size=(400, 23))
    means = [np.mean(values[indices[b]]) for b in range(400)]
    low, high = np.percentile(means, [2.5, 97.5])
    assert ja["value"] == pytest.approx(values.mean(), abs=1e-12)
    assert ja["ci_low"] == pytest.approx(low, abs=1e-12) and ja["ci_high"] == pytest.approx(high, abs=1e-12)


def test_bootstrap_interval_agrees_with_scipy_percentile_method():
    values = np.random.default_rng(3).random(60)
    table = results_table(
        scores([("ko", f"q{i:02d}", "precision", v) for i, v in enumerate(values)]), n_resamples=20000, seed=0
    )
    ko = row(table, lang="ko")
    reference = stats.bootstrap(
        (values,), np.mean, n_resamples=20000, method="percentile", confidence_level=0.95, rng=np.random.default_rng(1)
    )
    # Different draws, same method: the two intervals agree to Monte Carlo error (~0.003 here).
    assert ko["ci_low"] == pytest.approx(reference.confidence_interval.low, abs=0.01)
    assert ko["ci_high"] == pytest.approx(reference.confidence_interval.high, abs=0.01)


def test_ci_level_is_a_parameter():
    values = np.random.default_rng(5).random(40)
    frame = scores([("ko", f"q{i:02d}", "f1", v) for i, v in enumerate(values)])
    wide, narrow = (row(results_table(frame, n_resamples=2000, ci_level=level), lang="ko") for level in (0.95, 0.5))
    assert wide["ci_low"] < narrow["ci_low"] < narrow["ci_high"] < wide["ci_high"]
    assert narrow["ci_level"] == 0.5


def test_interval_of_a_row_does_not_depend_on_the_rest_of_the_table():
    frame = scores([("de", f"q{i}", "f1", (i % 5) / 4) for i in range(30)])
    other = scores([("fr", f"q{i}", "f1", 1.0) for i in range(30)], model="other")
    alone, together = (
        row(results_table(f, n_resamples=300, seed=4), lang="de", model="m") for f in (frame, pl.concat([other, frame]))
    )
    assert (alone["ci_low"], alone["ci_high"]) == (together["ci_low"], together["ci_high"])


# -- derived F ----------------------------------------------------------------------------


def information_rows():
    # Item c has no facts in the translated response (precision undefined) but recall 1;
    # item e is an empty response: both excluded.
    return [
        ("de", "a", "precision", 1.0),
        ("de", "a", "recall", 0.5),
        ("de", "b", "precision", 0.5),
        ("de", "b", "recall", 0.5),
        ("de", "c", "precision", "no_facts"),
        ("de", "c", "recall", 1.0),
        ("de", "d", "precision", 0.0),
        ("de", "d", "recall", 0.25),
        ("de", "e", "precision", "empty"),
        ("de", "e", "recall", "empty"),
    ]


def test_derived_f_is_the_harmonic_mean_of_the_input_means():
    table = results_table(scores(information_rows()), derived=[INFORMATION_F], n_resamples=200, seed=2)
    precision, recall, f = (row(table, metric=name) for name in ("precision", "recall", "F"))
    # C^P = (1 + .5 + 0) / 3 = .5; C^R = (.5 + .5 + 1 + .25) / 4 = .5625; F = 2·.5·.5625 / 1.0625.
    assert precision["value"] == pytest.approx(0.5) and recall["value"] == pytest.approx(0.5625)
    assert f["value"] == pytest.approx(2 * 0.5 * 0.5625 / 1.0625)
    assert f["kind"] == "derived" and precision["kind"] == "mean"
    assert (precision["n_items"], precision["excluded_reasons"]) == (3, "empty:1; no_facts:1")
    assert (recall["n_items"], recall["excluded_reasons"]) == (4, "empty:1")
    # F resamples the items with at least one input scored (a-d); e is excluded from both.
    assert (f["n_items"], f["n_excluded"], f["excluded_reasons"]) == (4, 1, "empty:1")


def test_derived_f_interval_resamples_items_jointly():
    table = results_table(scores(information_rows()), derived=[INFORMATION_F], n_resamples=500, seed=9)
    f = row(table, metric="F")
    p = np.array([1.0, 0.5, np.nan, 0.0])  # items a-d, sorted by id
    r = np.array([0.5, 0.5, 1.0, 0.25])
    indices = cell_rng(9, "d", "information", "m", "de", "F").integers(0, 4, size=(500, 4))
    samples = []
    for drawn in indices:
        cp, cr = np.nanmean(p[drawn]) if np.isfinite(p[drawn]).any() else np.nan, r[drawn].mean()
        if np.isfinite(cp):  # a resample with no precision at all is left out
            samples.append(0.0 if cp + cr == 0 else 2 * cp * cr / (cp + cr))
    low, high = np.percentile(samples, [2.5, 97.5])
    assert f["ci_low"] == pytest.approx(low, abs=1e-12) and f["ci_high"] == pytest.approx(high, abs=1e-12)


def test_derived_metric_only_where_all_inputs_exist_and_for_its_evaluators():
    rows = scores([("de", "a", "precision", 1.0), ("de", "a", "recall", 1.0), ("fr", "a", "precision", 1.0)])
    other = scores([("de", "a", "precision", 1.0), ("de", "a", "recall", 0.5)], evaluator="other")
    table = results_table(pl.concat([rows, other]), derived=[INFORMATION_F], n_resamples=10)
    assert table.filter(metric="F").select("evaluator", "lang").rows() == [("information", "de"), ("other", "de")]
    product = DerivedMetric("PR", ("precision", "recall"), lambda p, r: p * r, evaluators=("other",))
    found = results_table(pl.concat([rows, other]), derived=[product], n_resamples=0).filter(metric="PR")
    assert found.select("evaluator", "value").rows() == [("other", 0.5)]


def test_harmonic_mean_edge_cases():
    assert harmonic_mean(np.array(0.0), np.array(0.0)) == 0.0
    assert harmonic_mean(np.array(0.0), np.array(0.7)) == 0.0
    assert np.isnan(harmonic_mean(np.array(np.nan), np.array(0.0)))
    assert harmonic_mean(np.array([0.5]), np.array([1.0]))[0] == pytest.approx(2 / 3)


# -- input checks and output -------------------------------------------------------------------


def test_ok_rows_need_a_finite_value_and_keys_are_unique():
    broken = scores([("de", "a", "f1", 1.0)]).with_columns(value=pl.lit(None, dtype=pl.Float64))
    with pytest.raises(SchemaError, match="no finite value"):
        results_table(broken)
    with pytest.raises(SchemaError, match="repeat"):
        results_table(scores([("de", "a", "f1", 1.0), ("de", "a", "f1", 0.0)]))
    with pytest.raises(ValueError, match="name of an item-level metric"):
        results_table(scores([("de", "a", "F", 1.0)]), derived=[INFORMATION_F])


def test_results_written_as_parquet_and_csv(tmp_path):
    table = results_table(scores(information_rows()), derived=[INFORMATION_F], n_resamples=20)
    parquet, csv = write_results(table, tmp_path / "results")
    assert parquet.name == "results.parquet" and csv.name == "results.csv"
    assert read_table(parquet, RESULTS).num_rows == 3
    assert read_results([parquet]).equals(table)
    assert pl.read_csv(csv).height == 3


# -- Rates of binary outcomes: Wilson score intervals ----------------------------------------

Z95 = 1.959963984540054  # the normal 97.5% quantile


def _wilson_by_hand(k: int, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson (1927): (p + z²/2n ± z·sqrt(p(1-p)/n + z²/4n²)) / (1 + z²/n), p = k/n."""
    p = k / n
    centre, spread = p + z * z / (2 * n), z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return (centre - spread) / (1 + z * z / n), (centre + spread) / (1 + z * z / n)


def test_a_rate_of_5_of_5_gets_a_wilson_interval_not_a_zero_width_one():
    """Fidelity 5 of 5: every bootstrap resample is 5 of 5 ([1, 1] before); Wilson's interval is
    [0.5655, 1]. 3 of 4 in another language: [0.3006, 0.9544]; 0 of 2: [0, 0.6576]."""
    rows = [("de", str(i), "fidelity_same", 1) for i in range(5)]
    rows += [("fr", "a", "fidelity_same", 1), ("fr", "b", "fidelity_same", 0)]
    rows += [("fr", "c", "fidelity_same", 1), ("fr", "d", "fidelity_same", 1)]
    rows += [("hi", "a", "fidelity_same", 0), ("hi", "b", "fidelity_same", 0)]
    table = results_table(
        scores(rows, evaluator="fidelity"), rates=rate_metrics(["fidelity"]), n_resamples=1000, seed=1
    )
    for lang, k, n in (("de", 5, 5), ("fr", 3, 4), ("hi", 0, 2)):
        found = row(table, lang=lang)
        assert found["value"] == pytest.approx(k / n) and found["n_items"] == n
        assert (found["ci_low"], found["ci_high"]) == pytest.approx(_wilson_by_hand(k, n), abs=1e-9)
        assert found["ci_high"] - found["ci_low"] > 0.3
    assert row(table, lang="de")["ci_low"] == pytest.approx(0.565518, abs=1e-6)


def test_which_metrics_are_rates_comes_from_the_evaluator_registry():
    """One fact in one place (EvaluatorInfo.rates): fidelity, accuracy, line and word passes,
    empathy's agreements and the QE flags are rates; F, precision, chrF-like scores, LCPR (a
    harmonic mean of two rates) and QE's score are not. A rate's `@qe_pass` copy is a rate."""
    rates = rate_metrics(["fidelity", "judgments", "language_confusion", "empathy_items", "information_items"])
    assert {"fidelity_same", "fidelity_english", "accuracy", "line_pass", "word_pass", "consistency", "ER"} <= rates
    assert not {"f1", "precision", "recall", "F", "lcpr", "qe"} & rates
    assert {"qe_fail", "qe_copy"} <= rate_metrics(["fidelity", QE_INPUT]) and "qe_fail" not in rates
    assert is_rate("fidelity_same@qe_pass", rates) and not is_rate("f1@qe_pass", rates)


def test_a_rate_keeps_the_bootstrap_off_and_refuses_values_that_are_not_0_or_1():
    one = results_table(scores([("de", "a", "accuracy", 1)], evaluator="judge"), rates={"accuracy"})
    assert row(one, lang="de")["ci_low"] == pytest.approx(_wilson_by_hand(1, 1)[0]), "one item has an interval"
    none = results_table(scores([("de", "a", "accuracy", 1)], evaluator="judge"), rates={"accuracy"}, n_resamples=0)
    assert row(none, lang="de")["ci_low"] is None, "0 resamples: no intervals asked for"
    with pytest.raises(ValueError, match=r"'accuracy' is a rate.*model 'm', language 'de'.*0\.5"):
        results_table(scores([("de", "a", "accuracy", 0.5)], evaluator="judge"), rates={"accuracy"})
