"""Rule language_confusion_report: the model x language heatmap of the pass rate, per data set."""

import sys

sys.path.insert(0, snakemake.scriptdir)  # noqa: F821 (injected by Snakemake)
from xlcons.job import start_job  # noqa: E402


def main(smk) -> None:
    start_job(smk)
    from xlcons.evaluators.language_confusion import EVALUATOR, HEATMAP_LABELS, LCPR
    from xlcons.reports.heatmaps import write_metric_heatmaps

    params = smk.params
    write_metric_heatmaps(smk.input.results, params.heatmaps, EVALUATOR, LCPR.name, HEATMAP_LABELS, params.figure_formats)


# Guarded: vLLM starts its engine in a spawned process, which runs this file again.
if __name__ == "__main__":
    main(snakemake)  # noqa: F821
