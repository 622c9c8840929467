"""Model × language heatmaps of one metric of the results table, one figure per data set.

Any evaluator's report can use it (language confusion does): the rule names a figure per
data set, the evaluator its metric and labels.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from xlcons.reports.translate_then_evaluate import plot_metric_heatmap
from xlcons.schemas import RESULTS
from xlcons.tables import read_table


def write_metric_heatmaps(
    results_path: Path | str,
    heatmaps: Mapping[str, Path | str],
    evaluator: str,
    metric: str,
    labels: tuple[str, str],
    figure_formats: Sequence[str],
    *,
    english: bool = True,
) -> list[Path]:
    """`heatmaps` maps each data set to its figure's path without the suffix; `labels` are the
    colour bar's label and the title. English is a language like any other unless `english` is off."""
    results = read_table(results_path, RESULTS)
    written: list[Path] = []
    for dataset, base in heatmaps.items():
        written += plot_metric_heatmap(
            results, (dataset, evaluator, metric), labels, Path(base), figure_formats, english=english
        )
    return written
