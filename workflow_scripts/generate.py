"""Rule generate_<data set>: one model answers every language of one data set (or, with
`generation.shards`, one shard of its items)."""

import sys


def main(smk) -> None:
    from xlcons.job import start_job

    start_job(smk)
    from xlcons.generation.base import ModelSpec
    from xlcons.generation.stage import run_generation_job
    from xlcons.shards import job_shard

    params = smk.params
    responses = smk.output.get("responses", [])  # a shard job writes its table only
    spec = ModelSpec.from_config(smk.wildcards.model, params.model, params.model["location"])
    run_generation_job(
        spec,
        smk.input.prompts,
        responses,
        params.languages if responses else [],
        params.max_new_tokens,
        params.cache,
        table_path=smk.output.table,
        max_failed_share=params.max_failed_share,
        shard=job_shard(smk),
    )
    from xlcons.job import finish_job

    finish_job(smk)  # its usage ledger, once the outputs are written


# Guarded: vLLM starts its engine in a spawned process, which runs this file again (as
# __mp_main__, without the `snakemake` object that Snakemake puts before the script).
if __name__ == "__main__":
    sys.path.insert(0, snakemake.scriptdir)  # noqa: F821 (injected by Snakemake)
    main(snakemake)  # noqa: F821
