"""Paired comparison of two models (xlcons.reports.comparison): bootstrap CI of the difference and
the paired permutation test, checked against scipy.stats.permutation_test and a plain loop."""

from __future__ import annotations

import numpy as np
import polars as pl
import pyarrow as pa
import pytest
from scipy import stats

from xlcons.evaluators.information.derived import INFORMATION_F
from xlcons.reports.bootstrap import cell_rng
from xlcons.reports.comparison import PairedItems, compare_models, compare_pairs, paired_test
from xlcons.reports.results import results_table
from xlcons.schemas import COMPARISONS, ITEM_SCORES, POOLED
from xlcons.tables import conform


def scores(values: dict[str, dict[str, list]], metric="accuracy", evaluator="multiq", dataset="d") -> pl.DataFrame:
    """model -> lang -> item values (item ids i00, i01, ...; a string is an exclusion reason)."""
    rows = []
    for model, by_lang in values.items():
        for lang, items in by_lang.items():
            for index, value in enumerate(items):
                excluded = isinstance(value, str) or value is None
                rows.append(
                    {
                        "dataset": dataset,
                        "evaluator": evaluator,
                        "model": model,
                        "item_id": f"i{index:02d}",
                        "lang": lang,
                        "metric": metric,
                        "value": None if excluded else float(value),
                        "status": (value or "missing") if excluded else "ok",
                    }
                )
    return pl.from_arrow(pa.Table.from_pylist(rows, schema=ITEM_SCORES))


def row(table: pl.DataFrame, **key) -> dict:
    found = table.filter(**key)
    assert found.height == 1, found
    return found.row(0, named=True)


def scipy_paired(a, b, n_resamples):
    return stats.permutation_test(
        (np.asarray(a), np.asarray(b)),
        lambda x, y, axis: np.mean(x - y, axis=axis),
        permutation_type="samples",
        vectorized=True,
        n_resamples=n_resamples,
        alternative="two-sided",
        rng=np.random.default_rng(0),
    )


def test_identical_models_differ_by_zero_with_p_one():
    values = list(np.random.default_rng(0).random(40))
    table = compare_models(
        scores({"a": {"de": values}, "b": {"de": values}}), "a", "b", n_resamples=200, n_permutations=500
    )
    de = row(table, lang="de")
    assert de["difference"] == 0 and de["p_value"] == 1.0 and (de["ci_low"], de["ci_high"]) == (0.0, 0.0)
    assert de["n_items"] == 40 and de["exact"] is False and de["n_permutations"] == 500


def test_clearly_different_models_have_a_small_p_and_an_interval_excluding_zero():
    rng = np.random.default_rng(1)
    b = rng.random(50) * 0.5
    a = b + 0.3 + rng.normal(0, 0.05, 50)
    de = row(
        compare_models(
            scores({"a": {"de": list(a)}, "b": {"de": list(b)}}), "a", "b", n_resamples=1000, n_permutations=2000
        ),
        lang="de",
    )
    assert de["difference"] == pytest.approx(np.mean(a - b))
    # No random swap is as extreme as the observed difference: 2 · (0 + 1) / (2000 + 1).
    assert de["p_value"] == pytest.approx(2 / 2001)
    assert de["ci_low"] > 0.25 and de["ci_high"] < 0.35


def test_exact_test_matches_scipy_on_a_small_case():
    a = [0.9, 0.4, 0.7, 0.7, 0.2, 1.0, 0.55, 0.3]
    b = [0.5, 0.5, 0.1, 0.7, 0.0, 0.8, 0.5, 0.6]
    de = row(compare_models(scores({"a": {"de": a}, "b": {"de": b}}), "a", "b", n_permutations=1000), lang="de")
    reference = scipy_paired(a, b, 1000)  # 2^8 = 256 <= 1000: both enumerate every swap
    assert de["exact"] is True and de["n_permutations"] == 256
    assert de["difference"] == pytest.approx(reference.statistic)
    assert de["p_value"] == pytest.approx(reference.pvalue, abs=1e-12)


def test_random_permutations_agree_with_scipy():
    rng = np.random.default_rng(2)
    b = rng.random(30)
    a = b + rng.normal(0.04, 0.25, 30)
    de = row(
        compare_models(scores({"a": {"de": list(a)}, "b": {"de": list(b)}}), "a", "b", n_permutations=20000), lang="de"
    )
    reference = scipy_paired(a, b, 20000)
    assert 0.01 < reference.pvalue < 0.5
    assert de["p_value"] == pytest.approx(reference.pvalue, abs=0.015)  # Monte Carlo error of two estimates


def test_paired_bootstrap_interval_matches_a_plain_loop():
    rng = np.random.default_rng(3)
    a, b = rng.random(25), rng.random(25)
    de = row(
        compare_models(
            scores({"a": {"de": list(a)}, "b": {"de": list(b)}}), "a", "b", n_resamples=300, n_permutations=0, seed=5
        ),
        lang="de",
    )
    indices = cell_rng(5, "compare", "d", "multiq", "accuracy", "de", "a", "b").integers(0, 25, size=(300, 25))
    # Hesterberg's expanded percentile interval: quantiles at Phi(-+ sqrt(25/24) t_24(0.975)).
    tail = stats.norm.cdf(-np.sqrt(25 / 24) * stats.t.ppf(0.975, 24))
    assert 0.015 < tail < 0.02
    low, high = np.quantile([np.mean(a[i] - b[i]) for i in indices], [tail, 1 - tail])
    assert de["ci_low"] == pytest.approx(low, abs=1e-12) and de["ci_high"] == pytest.approx(high, abs=1e-12)
    assert de["p_value"] is None and de["n_permutations"] == 0


def _null_pairs(kind: str, rng: np.random.Generator, n: int) -> tuple[PairedItems, dict]:
    """Two models with the same score distribution on n items (item difficulty shared): no
    difference. `skewed`: scores in [0, 1], most near 0 (beta); `F`: precision (beta(5, 1.5)) and
    recall (skewed beta) per item, compared as information's F, the harmonic mean of the means."""
    difficulty = rng.random(n)
    if kind == "skewed":
        return PairedItems.from_values(rng.beta(0.4 + difficulty, 3), rng.beta(0.4 + difficulty, 3)), {}
    a = np.c_[rng.beta(5, 1.5, n), rng.beta(0.6 + difficulty, 3)]
    b = np.c_[rng.beta(5, 1.5, n), rng.beta(0.6 + difficulty, 3)]
    return PairedItems.from_values(a, b), {"function": INFORMATION_F.function}


@pytest.mark.parametrize("kind", ["skewed", "F"])
def test_the_paired_interval_covers_95_percent_at_20_items(kind):
    """1,500 simulated pairs of equal models on 20 items (seeded): the 95% interval of the
    difference holds 0 in 94-96% of them (here 94.3% and 94.5%). The percentile interval held it
    in 92.3% and 92.6% of these; with 10,000 simulations the expanded interval holds it in 94.3%
    (skewed) and 94.6% (F), the percentile one in 92.1% and 92.8%, BCa (2,000) in 91.8% and
    92.6% (docs/validation.md)."""
    rng = np.random.default_rng({"skewed": 41, "F": 42}[kind])
    simulations, covered = 1500, 0
    for _ in range(simulations):
        items, function = _null_pairs(kind, rng, 20)
        result = paired_test([items], **function, n_resamples=1000, n_permutations=0, rng=rng)
        covered += result["ci_low"] <= 0.0 <= result["ci_high"]
    assert 0.94 <= covered / simulations <= 0.96, covered / simulations


def test_items_are_paired_by_item_and_language():
    # b misses item 3 and excluded item 1; a excluded item 2: pairs are items 0 and 4.
    table = scores({"a": {"de": [1, 0, "no_answer", 1, 0]}, "b": {"de": [0, "unparseable", 1]}})
    table = pl.concat([table, scores({"b": {"de": [0, 0, 0, 0, 1]}}).filter(pl.col("item_id") == "i04")])
    de = row(compare_models(table, "a", "b", n_permutations=100), lang="de")
    assert de["n_items"] == 2 and de["value_a"] == 0.5 and de["value_b"] == 0.5 and de["difference"] == 0.0
    assert de["exact"] is True and de["n_permutations"] == 4


def test_pooled_over_languages_is_the_mean_of_language_differences_without_english():
    table = scores(
        {
            "a": {"en": [1, 1, 1, 1], "de": [1, 1, 0, 0], "fr": [1, 1, 1, 1, 1, 1]},
            "b": {"en": [0, 0, 0, 0], "de": [0, 0, 0, 0], "fr": [1, 1, 1, 0, 0, 0]},
        }
    )
    comparison = compare_models(table, "a", "b", n_resamples=200, n_permutations=5000)
    assert comparison["lang"].to_list() == ["de", "en", "fr", POOLED]
    pooled = row(comparison, lang=POOLED)
    # de: .5 - 0 = .5; fr: 1 - .5 = .5 -> mean .5 (en left out); 10 items in 2 languages.
    assert pooled["difference"] == pytest.approx(0.5) and pooled["n_items"] == 10 and pooled["n_languages"] == 2
    # 2^10 = 1024 <= 5000 swaps: exact; the statistic is sum(w · (a - b)) with w = 1 / (2 · items of the language).
    assert pooled["exact"] is True and pooled["n_permutations"] == 1024
    a = np.array([1, 1, 0, 0, 1, 1, 1, 1, 1, 1.0])
    b = np.array([0, 0, 0, 0, 1, 1, 1, 0, 0, 0.0])
    w = np.array([1 / 8] * 4 + [1 / 12] * 6)
    reference = stats.permutation_test(
        (a, b),
        lambda x, y, axis: np.sum(w * (x - y), axis=axis),
        permutation_type="samples",
        vectorized=True,
        n_resamples=5000,
    )
    assert pooled["p_value"] == pytest.approx(reference.pvalue, abs=1e-12)
    assert pooled["ci_low"] <= 0.5 <= pooled["ci_high"]


def information(model_values: dict[str, dict[str, list[tuple]]]) -> pl.DataFrame:
    """model -> lang -> [(precision, recall)] per item; a string is an exclusion reason."""
    frames = []
    for position, metric in enumerate(("precision", "recall")):
        values = {
            model: {lang: [item[position] for item in items] for lang, items in by_lang.items()}
            for model, by_lang in model_values.items()
        }
        frames.append(scores(values, metric=metric, evaluator="information"))
    return pl.concat(frames)


def test_derived_f_comparison():
    rng = np.random.default_rng(4)
    a_items = [(float(p), float(r)) for p, r in rng.random((20, 2))] + [("no_facts", 0.5)]
    b_items = [(p * 0.5, r * 0.5) if isinstance(p, float) else (p, r) for p, r in a_items]
    table = information({"a": {"de": a_items, "fr": a_items}, "b": {"de": b_items, "fr": a_items}})
    comparison = compare_models(table, "a", "b", derived=[INFORMATION_F], n_resamples=300, n_permutations=2000)
    results = results_table(table, derived=[INFORMATION_F], n_resamples=0)
    de = row(comparison, metric="F", lang="de")
    # Every item is paired, so each side's F is the results table's F.
    assert de["value_a"] == pytest.approx(row(results, model="a", lang="de", metric="F")["value"])
    assert de["value_b"] == pytest.approx(row(results, model="b", lang="de", metric="F")["value"])
    assert de["n_items"] == 21 and de["p_value"] < 0.01 and de["ci_low"] > 0
    fr = row(comparison, metric="F", lang="fr")  # identical there
    assert fr["difference"] == 0 and fr["p_value"] == 1.0
    pooled = row(comparison, metric="F", lang=POOLED)
    assert pooled["difference"] == pytest.approx(de["difference"] / 2)
    # precision's mean comparison pairs only the 20 scored items.
    assert row(comparison, metric="precision", lang="de")["n_items"] == 20


def test_schema_and_all_pairs():
    values = {"a": {"de": [1, 0, 1]}, "b": {"de": [1, 1, 1]}, "c": {"de": [0, 0, 1]}}
    table = compare_pairs(scores(values), n_resamples=10, n_permutations=10)
    assert table.select("model_a", "model_b").unique(maintain_order=True).rows() == [("a", "b"), ("a", "c"), ("b", "c")]
    assert table.columns == COMPARISONS.names
    conform(table.to_arrow(), COMPARISONS, what="comparisons")  # types and non-null columns
    assert compare_models(scores(values), "a", "b", pooled=False)["lang"].to_list() == ["de"]


def test_paired_test_on_arrays():
    from xlcons.reports.comparison import PairedItems, paired_test

    a, b = [0.9, 0.4, 0.7, 0.7, 0.2, 1.0, 0.55, 0.3], [0.5, 0.5, 0.1, 0.7, 0.0, 0.8, 0.5, 0.6]
    result = paired_test([PairedItems.from_values(a, b)], n_resamples=100, rng=np.random.default_rng(0))
    assert result["exact"] is True and result["p_value"] == pytest.approx(scipy_paired(a, b, 1000).pvalue, abs=1e-12)


def test_holm_and_benjamini_hochberg_against_hand_computed_values():
    from xlcons.reports.comparison import adjust_pvalues, holm

    # p = .01 .04 .03 .005; sorted .005 .01 .03 .04 (m = 4). Holm: 4 * .005 = .02, 3 * .01 = .03,
    # 2 * .03 = .06, 1 * .04 = .04 raised to the running maximum .06. BH: m / rank * p = .02, .02,
    # .04, .04, each the minimum of itself and those above it.
    assert holm([0.01, 0.04, 0.03, 0.005]) == pytest.approx([0.03, 0.06, 0.06, 0.02])
    assert holm([0.5, 0.9]) == pytest.approx([1.0, 1.0]), "capped at 1"
    # Two families (the pair a-b under two evaluators); a row without a p-value is in none.
    family = {"dataset": "d", "translator": "", "model_a": "a", "model_b": "b"}
    p = {
        ("x", "de"): 0.01,
        ("x", "fr"): 0.04,
        ("x", "hi"): 0.03,
        ("x", POOLED): 0.005,
        ("x", "ja"): None,
        ("y", "de"): 0.02,
        ("y", "fr"): 0.5,
    }
    table = pl.DataFrame(
        [{**family, "evaluator": evaluator, "lang": lang, "p_value": value} for (evaluator, lang), value in p.items()],
        schema={
            "dataset": pl.String,
            "translator": pl.String,
            "model_a": pl.String,
            "model_b": pl.String,
            "evaluator": pl.String,
            "lang": pl.String,
            "p_value": pl.Float64,
        },
    )
    adjusted = {(r["evaluator"], r["lang"]): r for r in adjust_pvalues(table).to_dicts()}
    assert [adjusted[("x", lang)]["p_holm"] for lang in ("de", "fr", "hi", POOLED)] == pytest.approx(
        [0.03, 0.06, 0.06, 0.02]
    )
    assert [adjusted[("x", lang)]["p_bh"] for lang in ("de", "fr", "hi", POOLED)] == pytest.approx(
        [0.02, 0.04, 0.04, 0.02]
    )
    assert (
        adjusted[("x", "ja")]["p_holm"] is None
        and adjusted[("x", "ja")]["n_tests"] == 4
        and adjusted[("x", "de")]["n_tests"] == 4
    )
    # y: sorted .02 .5 (m = 2): Holm .04, .5 (1 * .5, not below .04); BH .04, .5.
    assert (adjusted[("y", "de")]["p_holm"], adjusted[("y", "fr")]["p_holm"]) == (
        pytest.approx(0.04),
        pytest.approx(0.5),
    )
    assert (adjusted[("y", "de")]["p_bh"], adjusted[("y", "fr")]["p_bh"]) == (pytest.approx(0.04), pytest.approx(0.5))


def test_comparisons_adjust_every_p_value_of_a_model_pair_within_its_data_set_and_evaluator():
    rng = np.random.default_rng(7)
    values = {"a": {lang: list(rng.random(12)) for lang in ("de", "fr", "hi")}}
    values["b"] = {lang: [v * 0.6 for v in items] for lang, items in values["a"].items()}
    table = pl.concat([scores(values), scores(values, metric="fluency"), scores(values, evaluator="other")])
    compared = compare_models(table, "a", "b", n_resamples=0, n_permutations=500)
    multiq = compared.filter(evaluator="multiq")
    assert set(multiq["n_tests"].to_list()) == {8}, "2 metrics x (3 languages + pooled)"
    assert set(compared.filter(evaluator="other")["n_tests"].to_list()) == {4}, "another evaluator: another family"
    from scipy.stats import false_discovery_control

    from xlcons.reports.comparison import holm

    assert multiq["p_holm"].to_list() == pytest.approx(list(holm(multiq["p_value"].to_numpy())))
    assert multiq["p_bh"].to_list() == pytest.approx(list(false_discovery_control(multiq["p_value"].to_numpy())))
    assert all(h >= p for h, p in zip(multiq["p_holm"], multiq["p_value"]))


def test_n_items_counts_the_paired_items_alike_for_every_metric_and_is_zero_against_a_model_without_answers():
    """`n_items` is the number of items both models scored (for a derived metric: at least one
    of its inputs each), and the values are over those pairs only. Where the other model has
    no answer at all (here b in German), every metric, F included, has a row with n_items 0,
    n_languages 0 and no values, not the one side's count."""
    no = ("no_answer", "no_answer")
    table = information(
        {
            "a": {"de": [(0.5, 0.5), (1.0, 0.0)], "fr": [(1.0, 1.0), (0.5, "no_facts"), no]},
            "b": {"de": [no, no], "fr": [(0.5, 0.5), ("no_facts", 1.0), (1.0, 0.0)]},
        }
    )
    comparison = compare_models(table, "a", "b", derived=[INFORMATION_F], n_resamples=0, n_permutations=10)
    for metric in ("precision", "recall", "F"):
        de = row(comparison, metric=metric, lang="de")
        assert (de["n_items"], de["n_languages"], de["value_a"], de["value_b"], de["difference"], de["p_value"]) == (
            0,
            0,
            None,
            None,
            None,
            None,
        )
    # French: precision and recall pair item 0 only (a lacks recall of item 1 and b its
    # precision; a has no answer for item 2)
    for metric, (value_a, value_b) in {"precision": (1.0, 0.5), "recall": (1.0, 0.5)}.items():
        fr = row(comparison, metric=metric, lang="fr")
        assert (fr["n_items"], fr["value_a"], fr["value_b"], fr["difference"]) == (1, value_a, value_b, 0.5)
    # F pairs items 0 and 1 (each side scored an input of both): a: P (1 + .5)/2, R 1; b: P .5, R (.5 + 1)/2
    fr = row(comparison, metric="F", lang="fr")
    f_a, f_b = 2 * 0.75 * 1.0 / 1.75, 2 * 0.5 * 0.75 / 1.25
    assert fr["n_items"] == 2 and fr["value_a"] == pytest.approx(f_a) and fr["value_b"] == pytest.approx(f_b)
    assert fr["difference"] == pytest.approx(f_a - f_b)
    # pooled over de and fr: German pairs nothing, so French alone
    for metric, n in {"precision": 1, "recall": 1, "F": 2}.items():
        pooled = row(comparison, metric=metric, lang=POOLED)
        assert (pooled["n_items"], pooled["n_languages"]) == (n, 1)
    assert row(comparison, metric="F", lang=POOLED)["difference"] == pytest.approx(f_a - f_b)
