"""Rule knowledge_report: paper 001's Tables 3, 4 and 6 and the language-pair heatmaps."""

import sys
from pathlib import Path

sys.path.insert(0, snakemake.scriptdir)  # noqa: F821 (injected by Snakemake)
from xlcons.job import start_job  # noqa: E402


def main(smk) -> None:
    start_job(smk)
    from xlcons.reports.knowledge import run_report

    params = smk.params
    run_report(
        smk.input.scores,
        smk.input.pairs,
        Path(smk.output.report[0]).parent,  # every output sits in one folder
        table_formats=params.table_formats,
        figure_formats=params.figure_formats,
    )


# Guarded: vLLM starts its engine in a spawned process, which runs this file again.
if __name__ == "__main__":
    main(snakemake)  # noqa: F821
