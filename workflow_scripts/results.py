"""Rule results: every evaluator's per-item files in; the long results table, group tables and comparisons out.

Inputs are named by the evaluators' registered outputs (xlcons.evaluators.registry); params: the bootstrap
resamples and seed, each model's training languages, the table formats and the model
pairs to compare.
"""

import sys
from pathlib import Path

sys.path.insert(0, snakemake.scriptdir)  # noqa: F821 (injected by Snakemake)
from xlcons.job import start_job  # noqa: E402

start_job(snakemake)  # noqa: F821
from xlcons.reports.aggregate import run_results_job  # noqa: E402

inputs, params = snakemake.input, snakemake.params  # noqa: F821
run_results_job(
    {name: list(inputs[name]) for name in inputs.keys()},
    Path(snakemake.output.results).parent,  # noqa: F821
    n_resamples=params.n_resamples,
    seed=params.seed,
    training_languages=params.training_languages,
    table_formats=params.table_formats,
    comparisons=params.comparisons,
)
