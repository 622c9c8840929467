"""Rule judge: an LLM judges every answer of one model to one data set against the English question."""

import sys

sys.path.insert(0, snakemake.scriptdir)  # noqa: F821 (injected by Snakemake)
from xlcons.job import start_job  # noqa: E402

start_job(snakemake)  # noqa: F821
from xlcons.evaluators.judge import run_judge_job  # noqa: E402
from xlcons.generation.base import ModelSpec  # noqa: E402

params = snakemake.params  # noqa: F821
judge = ModelSpec.from_config("judge", params.judge, params.judge["location"])
run_judge_job(judge, snakemake.input.responses, snakemake.input.english, snakemake.output.judgments, params.cache)  # noqa: F821
