"""Translation-quality report: how much of a consistency score translation quality can move (issue: translation noise).

The results stage scores every item's translation by its quality estimates and scores the
translation-reading evaluators again on the items that pass (xlcons.reports.qe_scores: the
`translation_qe` rows, `<metric>@qe_pass` and `<metric>@qe_pass-all`).

The report (`tables/translation_quality/`) puts them side by side per (data set, evaluator,
model, language, metric): all items, passing items, the difference, each with its interval
and count, then `QE n` (the items with QE: the denominator of the shares beside it, not `all
n`), the mean QE, the shares below the threshold, copied, off target and failing QE, the
untranslatable items and the language's threshold; and draws the mean-QE heatmap of models
× languages.

With the translationese check on as well, `qe_round_trip` asks whether the cheap QE predicts
the expensive round trip (xlcons.reports.qe_round_trip); with several translators, the
translator spread tables say how far the choice of translator moves the scores and the
models' differences (xlcons.reports.translator_spread).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

import numpy as np
import polars as pl

from xlcons.reports.figure_style import MISSING_NOTE, draw_heatmap, fit_title
from xlcons.reports.formats import TABLE_SUFFIXES, save_figure, write_table_files
from xlcons.reports.metric_cells import model_order
from xlcons.reports.qe_round_trip import qe_round_trip_table
from xlcons.reports.qe_scores import DIFFERENCE, EVALUATOR, PASS, translating_evaluators
from xlcons.reports.results import primary_rows
from xlcons.reports.translator_spread import difference_spread_table, spread_table
from xlcons.translation.quality_backends import threshold_for

SENSITIVITY, HEATMAP, ROUND_TRIP = "sensitivity", "heatmap_qe", "qe_round_trip"
SPREAD = "translator_spread"
DIFFERENCE_SPREAD = "translator_difference_spread"
FIGURE_FORMATS = ("png", "pdf")

QE_COLUMNS = {
    "qe": "mean QE",
    "qe_below": "share below threshold",
    "qe_copy": "share copied",
    "qe_off_target": "share off-target",
    "qe_fail": "share failing QE",
}


def sensitivity_table(results: pl.DataFrame, thresholds: float | Mapping[str, float] | None = None) -> pl.DataFrame:
    """Per (data set, evaluator, model, language, metric): all items, passing items and the
    difference, each with its interval and count, beside the cell's QE: `QE n`, the items with
    QE (the denominator of the shares), the mean QE, the shares of items below the threshold,
    copied, off target and failing QE, `untranslatable n` (items without QE because their
    answer could not be translated) and, given `thresholds`, the language's `QE threshold`."""
    base = results.filter(
        pl.col("evaluator").is_in(translating_evaluators()) & ~pl.col("metric").str.contains("@qe_pass")
    )
    keys = ["dataset", "evaluator", "translator", "model", "lang", "metric"]

    def part(suffix: str, label: str) -> pl.DataFrame:
        rows = results.filter(pl.col("metric").str.ends_with(suffix)).with_columns(
            pl.col("metric").str.strip_suffix(suffix)
        )
        return rows.select(
            *keys,
            pl.col("value").alias(label),
            pl.col("ci_low").alias(f"{label} ci_low"),
            pl.col("ci_high").alias(f"{label} ci_high"),
            pl.col("n_items").alias(f"{label} n"),
        )

    table = base.select(
        *keys,
        pl.col("value").alias("all"),
        pl.col("ci_low").alias("all ci_low"),
        pl.col("ci_high").alias("all ci_high"),
        pl.col("n_items").alias("all n"),
    )
    table = table.join(part(PASS, "passing"), on=keys, how="left").join(
        part(DIFFERENCE, "difference"), on=keys, how="left"
    )
    cell = ["dataset", "translator", "model", "lang"]
    rows = results.filter((pl.col("evaluator") == EVALUATOR) & pl.col("metric").is_in(list(QE_COLUMNS)))
    qe = rows.select(cell).unique()
    for metric, label in QE_COLUMNS.items():
        values = rows.filter(pl.col("metric") == metric).select(*cell, pl.col("value").cast(pl.Float64).alias(label))
        qe = qe.join(values, on=cell, how="left")
    counts = rows.filter(pl.col("metric") == "qe_fail").select(
        *cell,
        pl.col("n_items").cast(pl.Int64).alias("QE n"),
        pl.col("n_excluded").cast(pl.Int64).alias("untranslatable n"),
    )
    qe = qe.join(counts, on=cell, how="left").select(*cell, "QE n", *QE_COLUMNS.values(), "untranslatable n")
    table = table.join(qe, on=cell, how="left")
    if thresholds is not None:
        table = table.with_columns(
            pl.col("lang")
            .map_elements(lambda lang: threshold_for(thresholds, lang), return_dtype=pl.Float64)
            .alias("QE threshold")
        )
    return table.sort(keys)


def plot_qe_heatmap(
    results: pl.DataFrame, base: Path, formats: Iterable[str], models: Sequence[str] | None = None
) -> list[Path]:
    """Mean QE per model (rows: `models`' order, the config's, else the results'; the same in
    every panel) and language (columns), one panel per data set, all on QE's fixed colour scale
    (xlcons.reports.figure_style); cells without a value grey and hatched."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    qe = results.filter((pl.col("evaluator") == EVALUATOR) & (pl.col("metric") == "qe"))
    datasets = sorted(set(qe["dataset"].to_list())) or ["(none)"]
    rows = model_order(qe, models)
    figure, axes = plt.subplots(
        1,
        len(datasets),
        figsize=(max(6.0, 0.6 * max(1, qe["lang"].n_unique()) + 3) * len(datasets), max(3.5, 2.0 + 0.4 * len(rows))),
        squeeze=False,
        layout="constrained",
    )
    for axis, dataset in zip(axes[0], datasets):
        part = qe.filter(pl.col("dataset") == dataset)
        if not part.height:
            axis.set_axis_off()
            fit_title(axis, "no translated sentences")
            continue
        languages = sorted(set(part["lang"].to_list()))
        matrix = np.full((len(rows), len(languages)), np.nan)
        for row in part.iter_rows(named=True):
            if row["model"] in rows and row["value"] is not None:
                matrix[rows.index(row["model"]), languages.index(row["lang"])] = row["value"]
        draw_heatmap(
            axis,
            matrix,
            "qe",
            xticklabels=languages,
            yticklabels=rows,
            xlabel="Language",
            ylabel="Model",
            cbar_label="Mean translation QE",
            annotate=len(languages) <= 30,
        )
        axis.tick_params(axis="y", labelrotation=0)
        fit_title(axis, f"{dataset}: mean translation QE" + (f"; {MISSING_NOTE}" if np.isnan(matrix).any() else ""))
    written = save_figure(figure, base, formats)
    plt.close(figure)
    return written


def report_outputs(
    out_dir: Path | str,
    models: Sequence[str],
    table_formats: Sequence[str],
    figure_formats: Sequence[str] = FIGURE_FORMATS,
    round_trip: bool = False,
    qe: bool = True,
    spread: bool = False,
) -> list[Path]:
    """The report's files: with `qe`, the sensitivity table and the QE heatmap; with `round_trip`
    the QE-vs-round-trip table (QE and round trips both on); with `spread` (several
    translators) the translator spread tables of the scores and of the models' differences."""
    out = Path(out_dir)
    tables = (
        ([SENSITIVITY] if qe else [])
        + ([ROUND_TRIP] if qe and round_trip else [])
        + ([SPREAD, DIFFERENCE_SPREAD] if spread else [])
    )
    figures = [out / f"{HEATMAP}.{kind}" for kind in figure_formats] if qe else []
    return [out / f"{table}{TABLE_SUFFIXES[kind]}" for table in tables for kind in table_formats] + figures


def run_report(
    results_path: Path | str,
    out_dir: Path | str,
    *,
    table_formats: Sequence[str] = ("csv", "markdown"),
    figure_formats: Sequence[str] = FIGURE_FORMATS,
    item_scores_path: Path | str | None = None,
    qe: bool = True,
    translators: Sequence[str] = (),
    qe_threshold: float | Mapping[str, float] | None = None,
    models: Sequence[str] | None = None,
) -> list[Path]:
    """The rule's job: the results table in; with `qe`, the sensitivity table (with each
    language's `qe_threshold`, when given) and the QE heatmap out, and with `item_scores_path`
    (the results stage's item_scores.parquet) the QE-vs-round-trip table too; with two or more
    `translators` (the primary first) their spread. The heatmap and the round-trip table show
    the primary translator's QE, the heatmap's rows in `models`' order (the config's)."""
    from xlcons.reports.results import item_scores_frame, read_item_scores, read_results

    results = read_results([results_path])
    primary = translators[0] if translators else None
    out = Path(out_dir)
    written: list[Path] = []
    if qe:
        written += write_table_files(
            sensitivity_table(results, qe_threshold), out / SENSITIVITY, table_formats, decimals=3
        )
    if qe and item_scores_path is not None:
        scores = primary_rows(item_scores_frame(read_item_scores([item_scores_path])), primary)
        agreement = qe_round_trip_table(scores)
        written += write_table_files(agreement, out / ROUND_TRIP, table_formats, decimals=3)
    if len(translators) > 1:
        written += write_table_files(spread_table(results, translators), out / SPREAD, table_formats, decimals=3)
        written += write_table_files(
            difference_spread_table(results, translators), out / DIFFERENCE_SPREAD, table_formats, decimals=3
        )
    if qe:
        written += plot_qe_heatmap(primary_rows(results, primary), out / HEATMAP, figure_formats, models)
    return written
