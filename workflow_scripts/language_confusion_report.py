"""Rule language_confusion_report: the model x language heatmap of the pass rate, per data set."""

import sys

sys.path.insert(0, snakemake.scriptdir)  # noqa: F821 (injected by Snakemake)
from xlcons.job import start_job  # noqa: E402

start_job(snakemake)  # noqa: F821
from xlcons.evaluators.language_confusion import EVALUATOR, HEATMAP_LABELS, LCPR  # noqa: E402
from xlcons.reports.heatmaps import write_metric_heatmaps  # noqa: E402

params = snakemake.params  # noqa: F821
write_metric_heatmaps(snakemake.input.results, params.heatmaps, EVALUATOR, LCPR.name, HEATMAP_LABELS, params.figure_formats)  # noqa: F821
