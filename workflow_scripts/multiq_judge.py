"""Rule multiq_judge: an LLM judges every answer of one model against the English question."""

import logging
import os
import sys

os.environ.setdefault("OMP_NUM_THREADS", str(snakemake.threads))  # noqa: F821 (before torch loads)
sys.path.insert(0, snakemake.scriptdir)  # noqa: F821 (injected by Snakemake)
sys.stderr = open(snakemake.log[0], "w")  # noqa: F821
logging.basicConfig(stream=sys.stderr, level=logging.INFO, format="%(asctime)s %(message)s")
from xlcons.evaluators.judge import run_judge_job  # noqa: E402
from xlcons.generation.base import ModelSpec  # noqa: E402

params = snakemake.params  # noqa: F821
judge = ModelSpec.from_config("judge", params.judge, params.judge["location"])
run_judge_job(judge, snakemake.input.responses, snakemake.input.english, snakemake.output.judgments, params.cache)  # noqa: F821
