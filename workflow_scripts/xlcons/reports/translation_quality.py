"""How much of a consistency score translation quality can move (issue: translation noise).

From the quality estimates of the translated sentences (TRANSLATION_QE) the results stage
derives, per (data set, model, item, language):

* ITEM_SCORES rows of evaluator `translation_qe`: `qe`, the mean QE of the item's translated
  sentences, and `qe_below`, 1 when one of them scores under the threshold, else 0. Their
  results rows are the mean QE and the share of items with a sentence below the threshold,
  with bootstrap intervals. Items with nothing translated (English passed through, no
  answer) have no QE and pass.
* for every evaluator that reads translations (information, empathy), each metric again on
  the items that pass (`<metric>@qe_pass`; the others excluded with reason `qe_below`), and
  the difference `<metric>@qe_pass-all` as a
  derived metric whose bootstrap resamples the items once for both means, so its interval
  is that of the difference. Derived metrics (information `F`) get both the same way.

The report (`tables/translation_quality/`) puts them side by side per (data set, evaluator,
model, language, metric): all items, passing items, the difference, each with its interval,
the mean QE and the share below the threshold; and draws the mean-QE heatmap of models ×
languages.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path

import numpy as np
import polars as pl

from xlcons.evaluators.registry import EVALUATORS, TRANSLATIONS
from xlcons.reports.formats import TABLE_SUFFIXES, save_figure, write_table_files
from xlcons.reports.results import DerivedMetric
from xlcons.schemas import ITEM_SCORES, ITEM_STATUS_OK

EVALUATOR = "translation_qe"
PASS = "@qe_pass"
DIFFERENCE = "@qe_pass-all"
SENSITIVITY, HEATMAP = "sensitivity", "heatmap_qe"
FIGURE_FORMATS = ("png", "pdf")
_KEYS = ["dataset", "model", "item_id", "lang"]


def translating_evaluators() -> list[str]:
    """The evaluators whose scores rest on translations (their ITEM_SCORES evaluator names)."""
    return [info.name for info in EVALUATORS.values() if info.reads == TRANSLATIONS]


def qe_item_scores(qe: pl.DataFrame, threshold: float) -> pl.DataFrame:
    """The `qe` and `qe_below` ITEM_SCORES rows of every item with a translated sentence."""
    per_item = qe.group_by(_KEYS).agg(pl.col("qe").mean().alias("qe"), (pl.col("qe").min() < threshold).cast(pl.Float64).alias("qe_below"))
    parts = [per_item.select(*_KEYS, pl.lit(EVALUATOR).alias("evaluator"), pl.lit(metric).alias("metric"),
                             pl.col(metric).alias("value"), pl.lit(ITEM_STATUS_OK).alias("status"))
             for metric in ("qe", "qe_below")]
    return pl.concat(parts).select(ITEM_SCORES.names)


FAILED_QE = "qe_below"  # the exclusion reason of an item whose translation fails QE


def passing_scores(scores: pl.DataFrame, qe_rows: pl.DataFrame) -> pl.DataFrame:
    """The translation-reading evaluators' rows as `<metric>@qe_pass`: an item whose translation
    fails QE is excluded there, with reason `qe_below` (so a cell where none passes says so)."""
    failing = qe_rows.filter((pl.col("metric") == "qe_below") & (pl.col("value") == 1.0)).select(*_KEYS, pl.lit(True).alias("_fails"))
    chosen = scores.filter(pl.col("evaluator").is_in(translating_evaluators())).join(failing, on=_KEYS, how="left")
    excluded = pl.col("_fails").fill_null(False) & (pl.col("status") == ITEM_STATUS_OK)
    return chosen.with_columns(
        (pl.col("metric") + PASS).alias("metric"),
        pl.when(excluded).then(None).otherwise(pl.col("value")).alias("value"),
        pl.when(excluded).then(pl.lit(FAILED_QE)).otherwise(pl.col("status")).alias("status"),
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
    passing = sorted({m.removesuffix(PASS) for m in scores.filter(pl.col("metric").str.ends_with(PASS))["metric"].unique().to_list()})
    metrics = [DerivedMetric(f"{m}{DIFFERENCE}", (f"{m}{PASS}", m), _difference(), tuple(translating_evaluators())) for m in passing]
    for metric in derived:
        if set(metric.inputs) <= set(passing):
            inputs = tuple(f"{name}{PASS}" for name in metric.inputs)
            metrics.append(DerivedMetric(f"{metric.name}{PASS}", inputs, metric.function, metric.evaluators))
            metrics.append(DerivedMetric(f"{metric.name}{DIFFERENCE}", inputs + metric.inputs,
                                         _difference(metric.function, len(inputs)), metric.evaluators))
    return metrics


def sensitivity_table(results: pl.DataFrame) -> pl.DataFrame:
    """Per (data set, evaluator, model, language, metric): all items, passing items and the
    difference, each with its interval, beside the mean QE and the share of items below."""
    base = results.filter(pl.col("evaluator").is_in(translating_evaluators()) & ~pl.col("metric").str.contains("@qe_pass"))
    keys = ["dataset", "evaluator", "model", "lang", "metric"]

    def part(suffix: str, label: str) -> pl.DataFrame:
        rows = results.filter(pl.col("metric").str.ends_with(suffix)).with_columns(pl.col("metric").str.strip_suffix(suffix))
        return rows.select(*keys, pl.col("value").alias(label), pl.col("ci_low").alias(f"{label} ci_low"),
                           pl.col("ci_high").alias(f"{label} ci_high"), pl.col("n_items").alias(f"{label} n"))

    table = base.select(*keys, pl.col("value").alias("all"), pl.col("ci_low").alias("all ci_low"), pl.col("ci_high").alias("all ci_high"),
                        pl.col("n_items").alias("all n"))
    table = table.join(part(PASS, "passing"), on=keys, how="left").join(part(DIFFERENCE, "difference"), on=keys, how="left")
    qe = results.filter(pl.col("evaluator") == EVALUATOR).pivot(on="metric", index=["dataset", "model", "lang"], values="value", aggregate_function="first")
    qe = qe.rename({"qe": "mean QE", "qe_below": "share below threshold"}) if qe.height else pl.DataFrame(
        schema={"dataset": pl.String, "model": pl.String, "lang": pl.String, "mean QE": pl.Float64, "share below threshold": pl.Float64})
    return table.join(qe, on=["dataset", "model", "lang"], how="left").sort(keys)


def plot_qe_heatmap(results: pl.DataFrame, base: Path, formats: Iterable[str]) -> list[Path]:
    """Mean QE per model (rows) and language (columns), one panel per data set."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import seaborn as sns

    qe = results.filter((pl.col("evaluator") == EVALUATOR) & (pl.col("metric") == "qe"))
    datasets = sorted(set(qe["dataset"].to_list())) or ["(none)"]
    figure, axes = plt.subplots(1, len(datasets), figsize=(max(6.0, 0.6 * max(1, qe["lang"].n_unique()) + 3) * len(datasets), 4.5), squeeze=False)
    for axis, dataset in zip(axes[0], datasets):
        part = qe.filter(pl.col("dataset") == dataset)
        if not part.height:
            axis.set_axis_off()
            axis.set_title("no translated sentences")
            continue
        models, languages = sorted(set(part["model"].to_list())), sorted(set(part["lang"].to_list()))
        matrix = np.full((len(models), len(languages)), np.nan)
        for row in part.iter_rows(named=True):
            matrix[models.index(row["model"]), languages.index(row["lang"])] = row["value"]
        sns.heatmap(matrix, ax=axis, xticklabels=languages, yticklabels=models, cmap="viridis", annot=len(languages) <= 30,
                    fmt=".2f", annot_kws={"size": 7}, cbar_kws={"label": "mean QE"})
        axis.set_title(f"{dataset}: mean translation QE")
    written = save_figure(figure, base, formats)
    plt.close(figure)
    return written


def report_outputs(out_dir: Path | str, models: Sequence[str], table_formats: Sequence[str], figure_formats: Sequence[str] = FIGURE_FORMATS) -> list[Path]:
    out = Path(out_dir)
    return [out / f"{SENSITIVITY}{TABLE_SUFFIXES[kind]}" for kind in table_formats] + [out / f"{HEATMAP}.{kind}" for kind in figure_formats]


def run_report(results_path: Path | str, out_dir: Path | str, *, table_formats: Sequence[str] = ("csv", "markdown"),
               figure_formats: Sequence[str] = FIGURE_FORMATS) -> list[Path]:
    """The rule's job: the results table in, the sensitivity table and the QE heatmap out."""
    from xlcons.reports.results import read_results

    results = read_results([results_path])
    out = Path(out_dir)
    written = write_table_files(sensitivity_table(results), out / SENSITIVITY, table_formats, decimals=3)
    return written + plot_qe_heatmap(results, out / HEATMAP, figure_formats)
