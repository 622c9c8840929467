"""The translation-ability report's figures (Xing et al. 2024 Figures 2 and 3): chrF and xSC heatmaps per
model, and chrF against consistency per direction and per language.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import numpy as np
import polars as pl

from xlcons.evaluators.translation_ability import language_means
from xlcons.reports.figure_style import draw_heatmap, fit_title
from xlcons.reports.formats import save_figure
from xlcons.reports.translation_ability_tables import consistency_by_language, overall_pairs


def _matrix(frame: pl.DataFrame, row: str, column: str, value: str, languages: list[str]) -> np.ndarray:
    matrix = np.full((len(languages), len(languages)), np.nan)
    for record in frame.iter_rows(named=True):
        if record[value] is not None and record[row] in languages and record[column] in languages:
            matrix[languages.index(record[row]), languages.index(record[column])] = record[value]
    return matrix


def plot_heatmaps(
    directions: pl.DataFrame, pairs: pl.DataFrame, model: str, base: Path, formats: Iterable[str]
) -> list[Path]:
    """Paper Figure 2: the model's xSC by language pair (when scored) beside its chrF by direction,
    each on its metric's fixed colour scale (xlcons.reports.figure_style); the diagonal white,
    pairs and directions without a value grey and hatched."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    mine = directions.filter(pl.col("model") == model)
    languages = list(dict.fromkeys(mine["source"].to_list() + mine["target"].to_list()))
    xsc = overall_pairs(pairs, ["xSC"]).filter(pl.col("model") == model)
    panels = (
        [("xSC", _matrix(xsc, "lang_i", "lang_j", "value", languages), "language j", "language i", "by language pair")]
        if xsc.height
        else []
    )
    panels.append(
        ("chrF", _matrix(mine, "source", "target", "chrf", languages), "target", "source", "by translation direction")
    )
    figure, axes = plt.subplots(1, len(panels), figsize=(6.5 * len(panels), 5.5), squeeze=False, layout="constrained")
    for axis, (label, matrix, x_label, y_label, what) in zip(axes[0], panels):
        draw_heatmap(
            axis,
            matrix,
            label,
            xticklabels=languages,
            yticklabels=languages,
            xlabel=x_label,
            ylabel=y_label,
            cbar_label=label,
            diagonal=True,
            annotate=len(languages) <= 12,
            fmt=".2f" if label == "xSC" else ".1f",
        )
        fit_title(axis, f"{model}: {label} {what}")
    written = save_figure(figure, base, formats)
    plt.close(figure)
    return written


def _metric_panels(metrics: list[str], draw, empty_title: str, base: Path, formats: Iterable[str]) -> list[Path]:
    """One scatter panel per consistency metric, `draw(axis, metric)` filling each; a note when there is none."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(1, max(1, len(metrics)), figsize=(6.5 * max(1, len(metrics)), 5.0), squeeze=False)
    for axis, metric in zip(axes[0], metrics):
        draw(axis, metric)
    if not metrics:
        axes[0][0].set_axis_off()
        fit_title(axes[0][0], empty_title)
    written = save_figure(figure, base, formats)
    plt.close(figure)
    return written


def plot_pair_scatter(cells: pl.DataFrame, base: Path, formats: Iterable[str]) -> list[Path]:
    """Figure 2 cell by cell: per direction and model, its chrF against its pair's xSC (xAC)."""
    import seaborn as sns

    metrics = [m for m in ("xSC", "xAC") if m in cells.columns and cells[m].is_not_null().any()]

    def draw(axis, metric: str) -> None:
        part = cells.filter(pl.col(metric).is_not_null() & pl.col("chrF").is_not_null()).sort(
            ["model", "source", "target"]
        )
        sns.scatterplot(
            x=part[metric].to_numpy(), y=part["chrF"].to_numpy(), hue=part["model"].to_list(), ax=axis, s=18
        )
        axis.set_xlabel(f"{metric} of the language pair")
        axis.set_ylabel("chrF of the translation direction")
        fit_title(axis, f"Translation chrF against {metric}, per direction")

    return _metric_panels(metrics, draw, "no direction scored for both translation and consistency", base, formats)


def plot_scatter(directions: pl.DataFrame, pairs: pl.DataFrame, base: Path, formats: Iterable[str]) -> list[Path]:
    """Paper Figure 3: per language and model, mean consistency against mean translation chrF."""
    import seaborn as sns

    points = (
        language_means(directions)
        .select("model", "lang", "chrF")
        .join(consistency_by_language(pairs), on=["model", "lang"], how="inner")
    )
    metrics = [m for m in ("xAC", "xSC") if points.filter(pl.col("metric") == m).height]

    def draw(axis, metric: str) -> None:
        part = points.filter(pl.col("metric") == metric).sort(["model", "lang"])
        sns.scatterplot(
            x=part["consistency"].to_numpy(), y=part["chrF"].to_numpy(), hue=part["model"].to_list(), ax=axis, s=40
        )
        for record in part.iter_rows(named=True):
            axis.annotate(
                record["lang"],
                (record["consistency"], record["chrF"]),
                fontsize=7,
                xytext=(3, 3),
                textcoords="offset points",
            )
        axis.set_xlabel(f"mean {metric} with the other languages")
        axis.set_ylabel("mean translation chrF (as source and target)")
        fit_title(axis, f"Translation ability against {metric}, per language")

    return _metric_panels(metrics, draw, "no language scored for both translation and consistency", base, formats)
