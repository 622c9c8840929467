"""Rule evaluator_report: the figure and the table of one evaluator (wildcards.evaluator) on one
data set it scored (wildcards.dataset), as its registry entry declares them, from the results table
(and, for a figure over language pairs, the evaluator's per-pair files, input `pairs`)."""

import sys
from pathlib import Path


def main(smk) -> None:
    from xlcons.job import start_job

    start_job(smk)
    from xlcons.reports.evaluator_figures import run_evaluator_report

    params = smk.params
    run_evaluator_report(
        smk.input.results,
        smk.wildcards.evaluator,
        smk.wildcards.dataset,
        Path(smk.output.report[0]).parent,  # every output sits in one folder
        table_formats=params.table_formats,
        figure_formats=params.figure_formats,
        models=params.models,  # the config's order
        translator=params.translator,
        pair_files=list(smk.input.pairs),
    )


if __name__ == "__main__":
    sys.path.insert(0, snakemake.scriptdir)  # noqa: F821 (injected by Snakemake)
    main(snakemake)  # noqa: F821
