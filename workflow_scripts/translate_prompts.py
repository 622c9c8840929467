"""Rule translate_prompts_<data set>: English prompts carried into every other language.

Input: the English prompts file; params: the target languages, the translator section,
checkpoint, converted CTranslate2 model and the job's cache; outputs: one prompts file
and one review TSV per language, in the order of params.langs.
"""

import sys

sys.path.insert(0, snakemake.scriptdir)  # noqa: F821 (injected by Snakemake)
from xlcons.job import start_job  # noqa: E402

start_job(snakemake)  # noqa: F821
from xlcons.translation.stage import job_translator, run_prompt_translation_job  # noqa: E402

params = snakemake.params  # noqa: F821
spec, degeneration = job_translator(params, snakemake.threads)  # noqa: F821
run_prompt_translation_job(
    spec,
    snakemake.input.prompts,  # noqa: F821
    params.langs,
    snakemake.output.prompts,  # noqa: F821
    snakemake.output.reviews,  # noqa: F821
    params.cache,
    degeneration=degeneration,
)
