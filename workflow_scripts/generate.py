"""Rule generate_<data set>: one model answers every language of one data set."""

import logging
import os
import sys

# Torch sizes its thread pool once, from this, on import: keep to the job's cores so
# parallel jobs on one node do not oversubscribe it.
os.environ.setdefault("OMP_NUM_THREADS", str(snakemake.threads))  # noqa: F821

sys.path.insert(0, snakemake.scriptdir)  # noqa: F821 (injected by Snakemake)
sys.stderr = open(snakemake.log[0], "w")  # noqa: F821
logging.basicConfig(stream=sys.stderr, level=logging.INFO, format="%(asctime)s %(message)s")
from xlcons.generation.base import ModelSpec  # noqa: E402
from xlcons.generation.stage import run_generation_job  # noqa: E402

params = snakemake.params  # noqa: F821
spec = ModelSpec.from_config(snakemake.wildcards.model, params.model, params.model["location"])  # noqa: F821
run_generation_job(spec, snakemake.input.prompts, snakemake.output.responses, params.max_new_tokens, params.cache)  # noqa: F821
