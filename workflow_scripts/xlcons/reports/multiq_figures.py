"""The MultiQ report's figures (Holtermann et al. 2024): fidelity bars (Figure 3), the language matrix
(Figure 4) and accuracy per language (Figures 5 and 9).
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import numpy as np
import polars as pl

from xlcons.reports.figure_style import draw_heatmap, fit_title
from xlcons.reports.formats import save_figure
from xlcons.reports.multiq_tables import FIDELITY_COLUMNS, models_in_order

FIDELITY_TITLES = {"same": "Same", "english": "English", "other": "Other"}
FIGURE_FORMATS = ("png", "pdf")
FIDELITY_COLOURS = {"same": "#43A047", "english": "#7CCEFD", "other": "#9667D0"}


def plot_fidelity(shares: pl.DataFrame, base: Path | str, formats: Iterable[str] = FIGURE_FORMATS) -> list[Path]:
    """Figure 3: one stacked horizontal bar per model, same / English / other (% of scored responses)."""
    import seaborn as sns
    from matplotlib.figure import Figure

    main = shares.filter(pl.col("variant") == "main")
    models = main["model"].to_list()
    with sns.axes_style("whitegrid"):
        figure = Figure(figsize=(8, 1.2 + 0.5 * max(len(models), 1)), layout="constrained")
        axis = figure.subplots()
        left = np.zeros(len(models))
        for name in FIDELITY_COLUMNS:
            values = np.array([value or 0.0 for value in main[name].to_list()])
            bars = axis.barh(
                models, values, left=left, color=FIDELITY_COLOURS[name], label=FIDELITY_TITLES[name], edgecolor="white"
            )
            for bar, value in zip(bars, values):
                if value >= 5:
                    axis.text(
                        bar.get_x() + bar.get_width() / 2,
                        bar.get_y() + bar.get_height() / 2,
                        f"{value:.1f}",
                        ha="center",
                        va="center",
                        fontsize=8,
                        color="black",
                    )
            left += values
        axis.set_xlim(0, 100)
        axis.set_xlabel("Responses (%)")
        axis.set_ylabel("Model")
        axis.invert_yaxis()
        fit_title(axis, "Language fidelity: response in the prompt's language, in English, or in another")
        axis.legend(
            title="Response language",
            loc="upper center",
            bbox_to_anchor=(0.5, -0.35 if len(models) < 4 else -0.12),
            ncol=3,
            frameon=False,
        )
        return save_figure(figure, Path(base), formats)


def languages_by_median_accuracy(by_language: pl.DataFrame) -> list[str]:
    """Prompt languages sorted by the median of the models' accuracies, best first (ties by code)."""
    medians = (
        by_language.filter(pl.col("accuracy").is_not_null())
        .group_by("lang")
        .agg(pl.col("accuracy").median().alias("median"))
    )
    return [row["lang"] for row in medians.sort(["median", "lang"], descending=[True, False]).to_dicts()]


def plot_accuracy_by_language(
    by_language: pl.DataFrame, base: Path | str, formats: Iterable[str] = FIGURE_FORMATS
) -> list[Path]:
    """Figures 5 and 9: each model's accuracy per prompt language, the languages sorted by the
    median accuracy over the models (the paper's Figure 5 shows four models of one size, Figure 9
    all six; here every model of the run)."""
    import seaborn as sns
    from matplotlib.figure import Figure

    languages = languages_by_median_accuracy(by_language)
    models = models_in_order(by_language)
    with sns.axes_style("whitegrid"):
        figure = Figure(figsize=(min(4 + 0.16 * max(len(languages), 1), 30), 4.5))
        axis = figure.subplots()
        palette = sns.color_palette("colorblind", max(len(models), 1))
        for colour, model in zip(palette, models):
            mine = {row["lang"]: row["accuracy"] for row in by_language.filter(pl.col("model") == model).to_dicts()}
            values = [np.nan if mine.get(lang) is None else mine[lang] for lang in languages]
            axis.plot(range(len(languages)), values, marker="o", markersize=3, linewidth=1, color=colour, label=model)
        axis.set_xticks(range(len(languages)))
        axis.set_xticklabels(languages, rotation=90, fontsize=6 if len(languages) > 40 else 8)
        axis.set_xlim(-0.5, max(len(languages), 1) - 0.5)
        axis.set_ylim(0, 100)
        axis.set_xlabel("Prompt language (sorted by the median accuracy over the models)")
        axis.set_ylabel("Accuracy (%)")
        fit_title(axis, "Accuracy per language")
        if models:
            axis.legend(loc="upper right", fontsize=8)
        figure.tight_layout()
        return save_figure(figure, Path(base), formats)


def plot_language_matrix(
    matrix: pl.DataFrame, model: str, base: Path | str, formats: Iterable[str] = FIGURE_FORMATS
) -> list[Path]:
    """Figure 4: heatmap of response-language shares per prompt language (fixed 0-100% scale,
    xlcons.reports.figure_style; cells without a value grey and hatched)."""
    from matplotlib.figure import Figure

    columns = [column for column in matrix.columns if column not in ("prompt_lang", "n_scored")]
    rows = [f"{lang} ({n})" for lang, n in zip(matrix["prompt_lang"].to_list(), matrix["n_scored"].to_list())]
    values = np.array(
        [[np.nan if value is None else value for value in matrix[column].to_list()] for column in columns], dtype=float
    ).T
    if values.size == 0:
        values = np.full((max(len(rows), 1), max(len(columns), 1)), np.nan)
    small = values.size <= 600
    height = min(2 + 0.28 * max(len(rows), 1), 45)
    figure = Figure(figsize=(min(3.5 + 0.45 * max(len(columns), 1), 30), height), layout="constrained")
    axis = figure.subplots()
    draw_heatmap(
        axis,
        values,
        "share_percent",
        xticklabels=columns,
        yticklabels=rows,
        xlabel="Response language (registry code, else LID label)",
        ylabel="Prompt language (scored responses)",
        cbar_label="Responses of the prompt language (%)",
        annotate=small,
        fmt=".0f",
        cbar_kws={"shrink": min(1.0, 6 / height)},
        linewidths=0.3 if small else 0,
    )
    fit_title(axis, f"{model}: prompt language × response language")
    axis.tick_params(axis="x", labelrotation=90)
    axis.tick_params(axis="y", labelrotation=0)
    return save_figure(figure, Path(base), formats)
