"""Rule prompt_table: one data set's per-language prompt files as one table, for the jobs that read every language."""

import sys


def main(smk) -> None:
    from xlcons.job import start_job

    start_job(smk, offline=False)
    from xlcons.schemas import PROMPTS
    from xlcons.tables import concat_table_files

    concat_table_files(smk.input.prompts, smk.output.table, PROMPTS)


# Guarded: vLLM starts its engine in a spawned process, which runs this file again (as
# __mp_main__, without the `snakemake` object that Snakemake puts before the script).
if __name__ == "__main__":
    sys.path.insert(0, snakemake.scriptdir)  # noqa: F821 (injected by Snakemake)
    main(snakemake)  # noqa: F821
