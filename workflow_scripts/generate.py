"""Rule generate_<data set>: one model answers every language of one data set."""

import sys

sys.path.insert(0, snakemake.scriptdir)  # noqa: F821 (injected by Snakemake)
from xlcons.job import start_job  # noqa: E402

start_job(snakemake)  # noqa: F821
from xlcons.generation.base import ModelSpec  # noqa: E402
from xlcons.generation.stage import run_generation_job  # noqa: E402

params = snakemake.params  # noqa: F821
spec = ModelSpec.from_config(snakemake.wildcards.model, params.model, params.model["location"])  # noqa: F821
run_generation_job(
    spec, snakemake.input.prompts, snakemake.output.responses, params.languages, params.max_new_tokens, params.cache,  # noqa: F821
    table_path=snakemake.output.table,  # noqa: F821
)
