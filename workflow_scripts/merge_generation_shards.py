"""Rule generate_<data set>_merge: a sharded generation job's tables made the unsharded job's outputs."""

import sys


def main(smk) -> None:
    from xlcons.job import start_job

    start_job(smk)
    from xlcons.generation.stage import merge_generation_shards

    merge_generation_shards(
        smk.input.prompts, smk.input.shards, smk.output.responses, smk.params.languages, smk.output.table
    )


if __name__ == "__main__":
    sys.path.insert(0, snakemake.scriptdir)  # noqa: F821 (injected by Snakemake)
    main(snakemake)  # noqa: F821
