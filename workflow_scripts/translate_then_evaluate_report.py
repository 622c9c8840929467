"""Rule translate_then_evaluate_report: Gupta et al. 2025's tables and figures from the results table.

Inputs: the results table and the EPITOME classifiers' evaluations (when the empathy set
runs); params: the output folder, the models, their training languages, whether the
translationese check ran, the table and figure formats, and the primary translator (whose
scores the tables show when `translators` adds more).
"""

import json
import sys
from pathlib import Path


def main(smk) -> None:
    from xlcons.job import start_job

    start_job(smk)
    from xlcons.reports.results import read_results
    from xlcons.reports.translate_then_evaluate import write_report

    inputs, params = smk.input, smk.params
    evaluations = [json.loads(Path(path).read_text(encoding="utf-8")) for path in inputs.classifiers]
    write_report(
        read_results([inputs.results]),
        params.out_dir,
        training_languages=params.training_languages,
        classifier_evaluations=evaluations or None,
        table_formats=params.table_formats,
        figure_formats=params.figure_formats,
        models=params.models,
        translationese=params.translationese,
        translator=params.translator,
    )


# Guarded: vLLM starts its engine in a spawned process, which runs this file again (as
# __mp_main__, without the `snakemake` object that Snakemake puts before the script).
if __name__ == "__main__":
    sys.path.insert(0, snakemake.scriptdir)  # noqa: F821 (injected by Snakemake)
    main(snakemake)  # noqa: F821
