"""Rule language_confusion_report: the model x language heatmap of the pass rate, per data set."""

import sys


def main(smk) -> None:
    from xlcons.job import start_job

    start_job(smk)
    from xlcons.evaluators.language_confusion import EVALUATOR, HEATMAP_LABELS, LCPR
    from xlcons.reports.heatmaps import write_metric_heatmaps

    params = smk.params
    write_metric_heatmaps(smk.input.results, params.heatmaps, EVALUATOR, LCPR.name, HEATMAP_LABELS, params.figure_formats)


# Guarded: vLLM starts its engine in a spawned process, which runs this file again (as
# __mp_main__, without the `snakemake` object that Snakemake puts before the script).
if __name__ == "__main__":
    sys.path.insert(0, snakemake.scriptdir)  # noqa: F821 (injected by Snakemake)
    main(snakemake)  # noqa: F821
