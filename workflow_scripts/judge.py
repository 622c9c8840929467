"""Rule judge: an LLM judges every answer of one model to one data set against the English question."""

import sys


def main(smk) -> None:
    from xlcons.job import start_job

    start_job(smk)
    from xlcons.evaluators.judge import run_judge_job
    from xlcons.generation.base import ModelSpec

    params = smk.params
    judge = ModelSpec.from_config("judge", params.judge, params.judge["location"])
    run_judge_job(judge, smk.input.responses, smk.input.english, smk.output.judgments, params.cache,
                  max_failed_share=params.max_failed_share)


# Guarded: vLLM starts its engine in a spawned process, which runs this file again (as
# __mp_main__, without the `snakemake` object that Snakemake puts before the script).
if __name__ == "__main__":
    sys.path.insert(0, snakemake.scriptdir)  # noqa: F821 (injected by Snakemake)
    main(snakemake)  # noqa: F821
