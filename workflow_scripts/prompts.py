"""Rule prompts: one data set's prompts in one language, PROMPTS schema."""

import sys


def main(smk) -> None:
    from xlcons.job import start_job

    start_job(smk, offline=False)
    from xlcons.datasets import run_loader
    from xlcons.schemas import PROMPTS
    from xlcons.tables import write_table

    wildcards, params = smk.wildcards, smk.params
    table = run_loader(params.loader, params.data, [wildcards.lang], params.selection, params.options)
    write_table(table, smk.output.prompts, PROMPTS)
    print(f"{wildcards.dataset}/{wildcards.lang}: {table.num_rows} prompts", file=sys.stderr)


# Guarded: vLLM starts its engine in a spawned process, which runs this file again (as
# __mp_main__, without the `snakemake` object that Snakemake puts before the script).
if __name__ == "__main__":
    sys.path.insert(0, snakemake.scriptdir)  # noqa: F821 (injected by Snakemake)
    main(snakemake)  # noqa: F821
