"""Rule results: every evaluator's per-item files in; the results table, groups, comparisons and summary out.

Inputs are named by the evaluators' registered outputs (xlcons.evaluators.registry); params: the bootstrap
resamples and seed, each model's training languages, the table formats, the model
pairs to compare, the QE threshold (translator.qe) and the translator behind each
translation-read file (the `translator` column), the random-weight offline models the run loads
and where the item explorer is (for the summary and the HTML report's first page).
"""

import sys
from pathlib import Path


def main(smk) -> None:
    from xlcons.job import start_job

    start_job(smk)
    from xlcons.reports.aggregate import run_results_job
    from xlcons.reports.summary import ExplorerLink

    inputs, params = smk.input, smk.params
    run_results_job(
        {name: list(inputs[name]) for name in inputs.keys()},
        Path(smk.output.results).parent,
        n_resamples=params.n_resamples,
        seed=params.seed,
        training_languages=params.training_languages,
        table_formats=params.table_formats,
        comparisons=params.comparisons,
        qe_threshold=params.qe_threshold,
        translators=params.translators,
        summary=(smk.output.summary, smk.output.summary_csv, smk.output.report_page),
        random_weights=params.random_weights,
        explorer=ExplorerLink(Path(params.explorer[0]), params.explorer[1]) if params.explorer else None,
        refusals=params.refusals,
        measurability=smk.output.measurability_csv,
    )


# Guarded: vLLM starts its engine in a spawned process, which runs this file again (as
# __mp_main__, without the `snakemake` object that Snakemake puts before the script).
if __name__ == "__main__":
    sys.path.insert(0, snakemake.scriptdir)  # noqa: F821 (injected by Snakemake)
    main(snakemake)  # noqa: F821
