"""Rule knowledge_scores: xSC, xAC, xTC and xC of one model's answers to one data set."""

import sys


def main(smk) -> None:
    from xlcons.job import start_job

    start_job(smk)
    from xlcons.evaluators.knowledge import run_knowledge_scores

    params, output = smk.params, smk.output
    run_knowledge_scores(
        smk.input.prompts,
        smk.input.responses,
        output.scores,
        output.pairs,
        output.per_item,
        embedder=params.embedder,
        ranking=params.ranking,
        oracle=params.oracle,
        oracle_answers=params.oracle_answers,
    )


# Guarded: vLLM starts its engine in a spawned process, which runs this file again (as
# __mp_main__, without the `snakemake` object that Snakemake puts before the script).
if __name__ == "__main__":
    sys.path.insert(0, snakemake.scriptdir)  # noqa: F821 (injected by Snakemake)
    main(snakemake)  # noqa: F821
