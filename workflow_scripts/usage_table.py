"""Rule usage: every model job's usage ledger in, results/tables/usage.csv out (xlcons.reports.usage)."""

import sys


def main(smk) -> None:
    from xlcons.job import start_job

    start_job(smk)
    from xlcons.reports.usage import run_usage_job

    run_usage_job(smk.input.usage, smk.params.jobs, smk.output.usage, smk.params.pricing)


# Guarded: vLLM starts its engine in a spawned process, which runs this file again (as
# __mp_main__, without the `snakemake` object that Snakemake puts before the script).
if __name__ == "__main__":
    sys.path.insert(0, snakemake.scriptdir)  # noqa: F821 (injected by Snakemake)
    main(snakemake)  # noqa: F821
