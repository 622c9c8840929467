"""Rule language_confusion: line- and word-level language of every answer of one model to one data set."""

import sys

sys.path.insert(0, snakemake.scriptdir)  # noqa: F821 (injected by Snakemake)
from xlcons.job import start_job  # noqa: E402

start_job(snakemake)  # noqa: F821
from xlcons.evaluators.language_id import run_language_confusion  # noqa: E402

params = snakemake.params  # noqa: F821
run_language_confusion(
    snakemake.input.responses,  # noqa: F821
    snakemake.output.per_item,  # noqa: F821
    params.model_path,
    params.label_scheme,
    min_line_tokens=params.min_line_tokens,
    min_confidence=params.min_confidence,
)
