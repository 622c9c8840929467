"""Rule knowledge_report: paper 001's Tables 3, 4 and 6 and the language-pair heatmaps."""

import sys
from pathlib import Path

sys.path.insert(0, snakemake.scriptdir)  # noqa: F821 (injected by Snakemake)
sys.stderr = open(snakemake.log[0], "w")  # noqa: F821
from xlcons.reports.knowledge import run_report  # noqa: E402

params = snakemake.params  # noqa: F821
run_report(
    snakemake.input.scores,  # noqa: F821
    snakemake.input.pairs,  # noqa: F821
    Path(snakemake.output.report[0]).parent,  # noqa: F821 (every output sits in one folder)
    table_formats=params.table_formats,
    figure_formats=params.figure_formats,
)
