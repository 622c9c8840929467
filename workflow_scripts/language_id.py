"""Rule language_id: the language of every response of one model to one data set, and its fidelity class."""

import sys

sys.path.insert(0, snakemake.scriptdir)  # noqa: F821 (injected by Snakemake)
from xlcons.job import start_job  # noqa: E402

start_job(snakemake)  # noqa: F821
from xlcons.evaluators.language_id import run_language_id  # noqa: E402

params = snakemake.params  # noqa: F821
run_language_id(
    snakemake.input.responses,  # noqa: F821
    snakemake.output.fidelity,  # noqa: F821
    params.model_path,
    params.label_scheme,
    params.unsupported,
    params.robust,
)
