"""Rule knowledge_scores: xSC, xAC, xTC and xC of one model's answers to one data set."""

import sys

sys.path.insert(0, snakemake.scriptdir)  # noqa: F821 (injected by Snakemake)
from xlcons.job import start_job  # noqa: E402

start_job(snakemake)  # noqa: F821
from xlcons.evaluators.knowledge import run_knowledge_scores  # noqa: E402

params, output = snakemake.params, snakemake.output  # noqa: F821
run_knowledge_scores(
    snakemake.input.prompts,  # noqa: F821
    snakemake.input.responses,  # noqa: F821
    output.scores,
    output.pairs,
    output.per_item,
    embedder=params.embedder,
    ranking=params.ranking,
    oracle=params.oracle,
    oracle_answers=params.oracle_answers,
)
