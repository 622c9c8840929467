"""Model × language heatmaps of one metric of the results table, one figure per data set.

Any evaluator's report can use it (language confusion does): the rule names a figure per
data set, the evaluator its metric and labels. The Translate-then-Evaluate report draws its
heatmaps with :func:`plot_metric_heatmap` too.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
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
from xlcons.schemas import RESULTS
from xlcons.tables import read_table

FIGURE_FORMATS = ("png", "pdf")
ANNOTATE_MAX_LANGUAGES = 40
ANNOTATE_MAX_MODELS = 30


def _group_label(group: str, n_languages: int) -> str:
    """A script group's axis label, broken onto two lines where the group is one or two cells wide."""
    label = "no group" if group == UNGROUPED else group
    if n_languages <= 2:
        label = label.replace("-", "-\n").replace(" ", "\n")
    return label


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

    frame = as_frame(results)
    lookup = cell_lookup(select_metric(frame, key, languages, reference=english))
    groups = language_groups({lang for _, lang in lookup}, registry)
    codes = [code for _, found in groups for code in found]
    rows = [
        model for model in model_order(frame, models) if models is not None or any(key[0] == model for key in lookup)
    ]
    matrix = np.full((len(rows), len(codes)), np.nan)
    for i, model in enumerate(rows):
        for j, code in enumerate(codes):
            if (model, code) in lookup:
                value = finite_or_none(lookup[(model, code)]["value"])
                matrix[i, j] = np.nan if value is None else value
    cbar_label, title = labels
    width = min(max(5.0, 2.5 + 0.5 * len(codes)), 40.0)
    height = min(max(2.6, 1.8 + 0.42 * len(rows)), 30.0)
    figure = Figure(figsize=(width, height), layout="constrained")
    axis = figure.subplots()
    if matrix.size == 0:
        axis.set_axis_off()
        axis.text(0.5, 0.5, "no results", ha="center", va="center", transform=axis.transAxes)
        fit_title(axis, title)
        return save_figure(figure, Path(base), formats)
    annotate = len(codes) <= ANNOTATE_MAX_LANGUAGES and len(rows) <= ANNOTATE_MAX_MODELS
    draw_heatmap(
        axis,
        matrix,
        key[2],
        xticklabels=codes,
        yticklabels=rows,
        xlabel="Language",
        ylabel="Model",
        cbar_label=cbar_label,
        annotate=annotate,
        annot_size=6.5,
    )
    boundaries = np.cumsum([len(found) for _, found in groups])[:-1]
    for boundary in boundaries:
        axis.axvline(boundary, color="white", linewidth=3)
    starts = np.concatenate([[0], np.cumsum([len(found) for _, found in groups])[:-1]])
    centres = [start + len(found) / 2 for start, (_, found) in zip(starts, groups)]
    top = axis.secondary_xaxis("top")
    top.set_xticks(centres, labels=[_group_label(group, len(found)) for group, found in groups])
    top.tick_params(length=0, labelsize=8)
    top.set_xlabel("Script group")
    axis.tick_params(axis="x", labelrotation=90 if len(codes) > 20 else 0)
    axis.tick_params(axis="y", labelrotation=0)
    fit_title(axis, title + (f"; {MISSING_NOTE}" if np.isnan(matrix).any() else ""), pad=8)
    return save_figure(figure, Path(base), formats)


def write_metric_heatmaps(
    results_path: Path | str,
    heatmaps: Mapping[str, Path | str],
    evaluator: str,
    metric: str,
    labels: tuple[str, str],
    figure_formats: Sequence[str],
    *,
    english: bool = True,
    models: Sequence[str] | None = None,
) -> list[Path]:
    """`heatmaps` maps each data set to its figure's path without the suffix; `labels` are the
    colour bar's label and the title; `models` (the config's order) the rows, in their order.
    English is a language like any other unless `english` is off."""
    results = read_table(results_path, RESULTS)
    written: list[Path] = []
    for dataset, base in heatmaps.items():
        written += plot_metric_heatmap(
            results, (dataset, evaluator, metric), labels, Path(base), figure_formats, english=english, models=models
        )
    return written
