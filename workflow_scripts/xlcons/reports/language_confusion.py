"""The language-confusion report: per data set, the model x language heatmap of the pass rate (lcpr),
read from the results table. Its own module, so that the scoring job (which imports the
evaluator's module) does not import the plotting libraries."""

from __future__ import annotations

from xlcons.evaluators.language_confusion import EVALUATOR, HEATMAP_LABELS, LCPR
from xlcons.reports.heatmaps import write_metric_heatmaps


def rule_language_confusion_report(smk) -> None:
    """Rule language_confusion_report: the heatmaps named by params.heatmaps, in every figure format,
    the models in params.models' order (the config's)."""
    params = smk.params
    write_metric_heatmaps(
        smk.input.results,
        params.heatmaps,
        EVALUATOR,
        LCPR.name,
        HEATMAP_LABELS,
        params.figure_formats,
        models=getattr(params, "models", None),
    )
