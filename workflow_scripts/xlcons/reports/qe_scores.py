"""The results stage's translation-QE rows: per-item QE scores, the scores on passing translations, their differences.

From the quality estimates of the translated sentences (TRANSLATION_QE) and the translation
path of each answer (TRANSLATIONS) the results stage derives, per (data set, model, item,
language), ITEM_SCORES rows of evaluator `translation_qe`:

* `qe`, the mean QE of the item's translated sentences (the backend's scores as they are,
  a copied sentence's included);
* `qe_below`, 1 when one of them scores under the threshold of the item's language (a
  number, or per language: xlcons.translation.quality_backends.threshold_for), else 0;
* `qe_copy` and `qe_off_target`, 1 when one of them is a copy of its source or not in
  English (xlcons.translation.quality_checks), else 0;
* `qe_fail`, 1 when any of the three is: the item fails QE whatever its scores.

Their results rows are the mean QE and the shares of items, with bootstrap intervals; the
denominator of every share is the row's `n_items`, the items with a translated sentence.
An item whose answer could not be translated (path `untranslatable`: kept as it is, in a
language NLLB lacks) has no sentence to score: its rows have status `untranslatable`, so
it is counted among the excluded items (`n_excluded`) and in no share. Items with nothing
to translate (English passed through, no answer) have no rows and are in no denominator.

For every evaluator that reads translations (information, empathy), each metric again on
the items that pass (`<metric>@qe_pass`), the others excluded with their reason: the first
of `qe_copy`, `qe_off_target`, `qe_below` that the item has, or `untranslatable` (English
passed through and no answer pass: nothing was translated); and the difference
`<metric>@qe_pass-all` as a derived metric whose bootstrap resamples the items once for both
means, so its interval is that of the difference. Derived metrics (information `F`) get
both the same way.

The report of these rows is xlcons.reports.translation_quality.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import polars as pl

from xlcons.derived_metrics import DerivedMetric
from xlcons.evaluators.registry import EVALUATORS, TRANSLATIONS
from xlcons.reports.results import with_translator
from xlcons.schemas import ITEM_SCORES, ITEM_STATUS_OK
from xlcons.translation.quality_backends import threshold_for

EVALUATOR = "translation_qe"
PASS = "@qe_pass"
DIFFERENCE = "@qe_pass-all"
ITEM_KEYS = ["dataset", "model", "item_id", "lang"]


def translating_evaluators() -> list[str]:
    """The evaluators whose scores rest on translations (their ITEM_SCORES evaluator names)."""
    return [info.name for info in EVALUATORS.values() if info.reads == TRANSLATIONS]


# The QE flags per item (1: the item is flagged): rates, with a Wilson interval in the results table.
QE_RATES = ("qe_below", "qe_copy", "qe_off_target", "qe_fail")
QE_METRICS = ("qe", *QE_RATES)
# Why an item fails QE, in the order an excluded `@qe_pass` row names it.
FAIL_REASONS = ("qe_copy", "qe_off_target", "qe_below")
UNTRANSLATABLE = "untranslatable"  # the QE status of an answer kept untranslated (and its exclusion reason)
FAILED_QE = "qe_below"  # the exclusion reason of an item with a sentence under the threshold


def qe_item_scores(
    qe: pl.DataFrame, threshold: float | Mapping[str, float], paths: pl.DataFrame | None = None
) -> pl.DataFrame:
    """The QE_METRICS ITEM_SCORES rows of every item with a translated sentence (status ok), and
    of every item of `paths` (TRANSLATIONS rows: item keys, translator, translation_path) whose
    answer is untranslatable (status `untranslatable`, no value). `threshold`: a number, or a
    mapping of languages with a `default`."""
    qe = with_translator(qe)
    for flag in ("copy", "off_target"):  # tables written before the checks: nothing flagged
        qe = (
            qe.with_columns(pl.col(flag).fill_null(False))
            if flag in qe.columns
            else qe.with_columns(pl.lit(False).alias(flag))
        )
    thresholds = {lang: threshold_for(threshold, lang) for lang in qe["lang"].unique().to_list()}
    qe = qe.with_columns(
        (pl.col("qe") < pl.col("lang").replace_strict(thresholds, return_dtype=pl.Float64)).alias("_below")
    )
    per_item = qe.group_by([*ITEM_KEYS, "translator"]).agg(
        pl.col("qe").mean().alias("qe"),
        pl.col("_below").any().cast(pl.Float64).alias("qe_below"),
        pl.col("copy").any().cast(pl.Float64).alias("qe_copy"),
        pl.col("off_target").any().cast(pl.Float64).alias("qe_off_target"),
        (pl.col("_below") | pl.col("copy") | pl.col("off_target")).any().cast(pl.Float64).alias("qe_fail"),
    )
    parts = [
        per_item.select(
            *ITEM_KEYS,
            "translator",
            pl.lit(EVALUATOR).alias("evaluator"),
            pl.lit(metric).alias("metric"),
            pl.col(metric).alias("value"),
            pl.lit(ITEM_STATUS_OK).alias("status"),
        )
        for metric in QE_METRICS
    ]
    if paths is not None:
        kept = (
            with_translator(paths)
            .filter(pl.col("translation_path") == UNTRANSLATABLE)
            .select(*ITEM_KEYS, "translator")
            .unique()
        )
        parts += [
            kept.select(
                *ITEM_KEYS,
                "translator",
                pl.lit(EVALUATOR).alias("evaluator"),
                pl.lit(metric).alias("metric"),
                pl.lit(None, pl.Float64).alias("value"),
                pl.lit(UNTRANSLATABLE).alias("status"),
            )
            for metric in QE_METRICS
        ]
    return pl.concat(parts).select(ITEM_SCORES.names).cast({"value": pl.Float64})


def passing_scores(scores: pl.DataFrame, qe_rows: pl.DataFrame) -> pl.DataFrame:
    """The translation-reading evaluators' rows as `<metric>@qe_pass`: an item whose translation
    fails QE is excluded there, with its reason (the first of FAIL_REASONS it has, or
    `untranslatable`), so a cell where none passes says why."""
    keys = [*ITEM_KEYS, "translator"]  # an item's QE under the translator its score rests on
    qe_rows = with_translator(qe_rows)
    order = {reason: rank for rank, reason in enumerate(FAIL_REASONS)}
    flagged = qe_rows.filter(pl.col("metric").is_in(FAIL_REASONS) & (pl.col("value") == 1.0))
    failing = (
        flagged.with_columns(pl.col("metric").replace_strict(order, return_dtype=pl.Int32).alias("_rank"))
        .sort("_rank")
        .group_by(keys)
        .agg(pl.col("metric").first().alias("_reason"))
    )
    kept = qe_rows.filter((pl.col("metric") == "qe_fail") & (pl.col("status") == UNTRANSLATABLE)).select(
        *keys, pl.lit(UNTRANSLATABLE).alias("_reason")
    )
    reasons = pl.concat([failing.select(*keys, "_reason"), kept]).unique(subset=keys, keep="first")
    chosen = (
        with_translator(scores)
        .filter(pl.col("evaluator").is_in(translating_evaluators()))
        .join(reasons, on=keys, how="left")
    )
    excluded = pl.col("_reason").is_not_null() & (pl.col("status") == ITEM_STATUS_OK)
    return chosen.with_columns(
        (pl.col("metric") + PASS).alias("metric"),
        pl.when(excluded).then(None).otherwise(pl.col("value")).alias("value"),
        pl.when(excluded).then(pl.col("_reason")).otherwise(pl.col("status")).alias("status"),
    ).select(ITEM_SCORES.names)


def _difference(function=None, k: int = 1):
    def difference(*means: np.ndarray) -> np.ndarray:
        if function is None:
            return means[0] - means[1]
        return function(*means[:k]) - function(*means[k:])

    return difference


def sensitivity_metrics(scores: pl.DataFrame, derived: Sequence[DerivedMetric]) -> list[DerivedMetric]:
    """Derived metrics of the passing items: each derived metric on `@qe_pass` inputs, and the
    difference `@qe_pass-all` of every metric (mean or derived) that has passing rows."""
    passing = sorted(
        {m.removesuffix(PASS) for m in scores.filter(pl.col("metric").str.ends_with(PASS))["metric"].unique().to_list()}
    )
    metrics = [
        DerivedMetric(f"{m}{DIFFERENCE}", (f"{m}{PASS}", m), _difference(), tuple(translating_evaluators()))
        for m in passing
    ]
    for metric in derived:
        if set(metric.inputs) <= set(passing):
            inputs = tuple(f"{name}{PASS}" for name in metric.inputs)
            metrics.append(DerivedMetric(f"{metric.name}{PASS}", inputs, metric.function, metric.evaluators))
            metrics.append(
                DerivedMetric(
                    f"{metric.name}{DIFFERENCE}",
                    inputs + metric.inputs,
                    _difference(metric.function, len(inputs)),
                    metric.evaluators,
                )
            )
    return metrics
