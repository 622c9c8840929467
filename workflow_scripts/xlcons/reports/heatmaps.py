"""Model × language heatmaps of one metric of the results table.

The evaluator reports (xlcons.reports.evaluator_figures) draw a panel per metric with
:func:`metric_matrix` and :func:`draw_metric_panel`; the Translate-then-Evaluate report draws its
heatmaps with :func:`plot_metric_heatmap`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path

import numpy as np
import polars as pl
import pyarrow as pa

from xlcons.languages import LanguageRegistry
from xlcons.reports.figure_style import MISSING_NOTE, draw_heatmap, fit_title
from xlcons.reports.formats import save_figure
from xlcons.reports.groups import UNGROUPED
from xlcons.reports.metric_cells import (
    as_frame,
    cell_lookup,
    finite_or_none,
    language_groups,
    model_order,
    select_metric,
)

FIGURE_FORMATS = ("png", "pdf")
ANNOTATE_MAX_LANGUAGES = 40
ANNOTATE_MAX_MODELS = 30


def _group_label(group: str, n_languages: int) -> str:
    """A script group's axis label, broken onto two lines where the group is one or two cells wide."""
    label = "no group" if group == UNGROUPED else group
    if n_languages <= 2:
        label = label.replace("-", "-\n").replace(" ", "\n")
    return label


def metric_matrix(
    results: pl.DataFrame,
    key: tuple[str, str, str],
    *,
    languages: Sequence[str] | None = None,
    models: Sequence[str] | None = None,
    registry: LanguageRegistry | None = None,
    english: bool = False,
) -> tuple[np.ndarray, list[str], list[tuple[str, list[str]]]]:
    """One (data set, evaluator, metric)'s values as a models × languages matrix (NaN: no value),
    its rows (`models` in their order when given, else the models with a value) and its columns'
    script groups (each with its codes)."""
    lookup = cell_lookup(select_metric(results, key, languages, reference=english))
    groups = language_groups({lang for _, lang in lookup}, registry)
    codes = [code for _, found in groups for code in found]
    rows = [model for model in model_order(results, models) if models is not None or any(m == model for m, _ in lookup)]
    matrix = np.full((len(rows), len(codes)), np.nan)
    for i, model in enumerate(rows):
        for j, code in enumerate(codes):
            if (model, code) in lookup:
                value = finite_or_none(lookup[(model, code)]["value"])
                matrix[i, j] = np.nan if value is None else value
    return matrix, rows, groups


def panel_size(n_languages: int, n_models: int) -> tuple[float, float]:
    """Width and height (inches) of one models × languages panel."""
    return min(max(5.0, 2.5 + 0.5 * n_languages), 40.0), min(max(2.6, 1.8 + 0.42 * n_models), 30.0)


def draw_metric_panel(
    axis,
    matrix: np.ndarray,
    metric: str,
    rows: Sequence[str],
    groups: Sequence[tuple[str, list[str]]],
    cbar_label: str,
    title: str,
) -> None:
    """A :func:`metric_matrix` on `metric`'s fixed colour scale, languages grouped by script (the
    group names on top), the title saying where cells are missing."""
    codes = [code for _, found in groups for code in found]
    if matrix.size == 0:
        axis.set_axis_off()
        axis.text(0.5, 0.5, "no results", ha="center", va="center", transform=axis.transAxes)
        fit_title(axis, title)
        return
    annotate = len(codes) <= ANNOTATE_MAX_LANGUAGES and len(rows) <= ANNOTATE_MAX_MODELS
    draw_heatmap(
        axis,
        matrix,
        metric,
        xticklabels=codes,
        yticklabels=rows,
        xlabel="Language",
        ylabel="Model",
        cbar_label=cbar_label,
        annotate=annotate,
        annot_size=6.5,
    )
    sizes = [len(found) for _, found in groups]
    for boundary in np.cumsum(sizes)[:-1]:
        axis.axvline(boundary, color="white", linewidth=3)
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    centres = [start + size / 2 for start, size in zip(starts, sizes)]
    top = axis.secondary_xaxis("top")
    top.set_xticks(centres, labels=[_group_label(group, len(found)) for group, found in groups])
    top.tick_params(length=0, labelsize=8)
    top.set_xlabel("Script group")
    axis.tick_params(axis="x", labelrotation=90 if len(codes) > 20 else 0)
    axis.tick_params(axis="y", labelrotation=0)
    fit_title(axis, title + (f"; {MISSING_NOTE}" if np.isnan(matrix).any() else ""), pad=8)


def plot_metric_heatmap(
    results: pa.Table | pl.DataFrame,
    key: tuple[str, str, str],
    labels: tuple[str, str],
    base: Path | str,
    formats: Iterable[str] = FIGURE_FORMATS,
    *,
    languages: Sequence[str] | None = None,
    models: Sequence[str] | None = None,
    registry: LanguageRegistry | None = None,
    english: bool = False,
) -> list[Path]:
    """Model × language heatmap of one (data set, evaluator, metric) of the results table, in
    languages grouped by script, on the metric's fixed colour scale (xlcons.reports.figure_style),
    models in `models`' order (the config's) when given; `labels` are the colour bar's label and the title.
    English is left out unless `english` (Gupta et al. 2025 compares every language with it)."""
    from matplotlib.figure import Figure

    matrix, rows, groups = metric_matrix(
        as_frame(results), key, languages=languages, models=models, registry=registry, english=english
    )
    figure = Figure(figsize=panel_size(matrix.shape[1], len(rows)), layout="constrained")
    cbar_label, title = labels
    draw_metric_panel(figure.subplots(), matrix, key[2], rows, groups, cbar_label, title)
    return save_figure(figure, Path(base), formats)
