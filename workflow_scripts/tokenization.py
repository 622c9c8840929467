"""Rule tokenization: how one model's tokenizer cuts each language's prompts (paper 004, Table 5)."""

import sys

sys.path.insert(0, snakemake.scriptdir)  # noqa: F821 (injected by Snakemake)
from xlcons.job import start_job  # noqa: E402

start_job(snakemake)  # noqa: F821
from xlcons.evaluators.tokenization import run_tokenization  # noqa: E402

run_tokenization(snakemake.params.tokenizer, snakemake.input.prompts, snakemake.output.tokenization, model=snakemake.wildcards.model)  # noqa: F821
