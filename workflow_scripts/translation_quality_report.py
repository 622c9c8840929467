"""Rule translation_quality_report: the scores on passing translations beside all, the mean-QE heatmap and,
with round trips (input `item_scores`), the correlation of item QE with the item's round trip (params.qe);
with several translators (params.translators, the primary first), the spread of the scores between them."""

import sys
from pathlib import Path


def main(smk) -> None:
    from xlcons.job import start_job

    start_job(smk)
    from xlcons.reports.translation_quality import run_report

    params = smk.params
    item_scores = smk.input.item_scores  # a path when QE and round trips are both on, else empty
    if not isinstance(item_scores, str):
        item_scores = item_scores[0] if item_scores else None
    run_report(
        smk.input.results,
        Path(smk.output.report[0]).parent,  # every output sits in one folder
        table_formats=params.table_formats,
        figure_formats=params.figure_formats,
        item_scores_path=item_scores,
        qe=params.qe,
        translators=params.translators,
        qe_threshold=params.qe_threshold,
        models=getattr(params, "models", None),  # the config's order of models
    )


# Guarded: vLLM starts its engine in a spawned process, which runs this file again (as
# __mp_main__, without the `snakemake` object that Snakemake puts before the script).
if __name__ == "__main__":
    sys.path.insert(0, snakemake.scriptdir)  # noqa: F821 (injected by Snakemake)
    main(snakemake)  # noqa: F821
