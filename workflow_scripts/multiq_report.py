"""Rule multiq_report: Holtermann et al. 2024's tables and figures for every configured model."""

import sys
from pathlib import Path


def main(smk) -> None:
    from xlcons.job import start_job

    start_job(smk)
    from xlcons.reports.multiq import run_report

    params = smk.params
    run_report(
        smk.input.fidelity,
        smk.input.judgments,
        Path(smk.output.report[0]).parent,  # every output sits in one folder
        smk.input.tokenization,
        table_formats=params.table_formats,
        figure_formats=params.figure_formats,
    )


# Guarded: vLLM starts its engine in a spawned process, which runs this file again (as
# __mp_main__, without the `snakemake` object that Snakemake puts before the script).
if __name__ == "__main__":
    sys.path.insert(0, snakemake.scriptdir)  # noqa: F821 (injected by Snakemake)
    main(snakemake)  # noqa: F821
