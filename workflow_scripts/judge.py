"""Rule judge: an LLM judges every answer of one model to one data set against the English question."""

import sys

sys.path.insert(0, snakemake.scriptdir)  # noqa: F821 (injected by Snakemake)
from xlcons.job import start_job  # noqa: E402


def main(smk) -> None:
    start_job(smk)
    from xlcons.evaluators.judge import run_judge_job
    from xlcons.generation.base import ModelSpec

    params = smk.params
    judge = ModelSpec.from_config("judge", params.judge, params.judge["location"])
    run_judge_job(judge, smk.input.responses, smk.input.english, smk.output.judgments, params.cache)


# Guarded: vLLM starts its engine in a spawned process, which runs this file again.
if __name__ == "__main__":
    main(snakemake)  # noqa: F821
