"""Rule multiq_report: paper 004's tables and figures for every configured model."""

import sys
from pathlib import Path

sys.path.insert(0, snakemake.scriptdir)  # noqa: F821 (injected by Snakemake)
sys.stderr = open(snakemake.log[0], "w")  # noqa: F821
from xlcons.reports.multiq import run_report  # noqa: E402

params = snakemake.params  # noqa: F821
run_report(
    snakemake.input.fidelity,  # noqa: F821
    snakemake.input.judgments,  # noqa: F821
    Path(snakemake.output.report[0]).parent,  # noqa: F821 (every output sits in one folder)
    snakemake.input.tokenization,  # noqa: F821
    table_formats=params.table_formats,
    figure_formats=params.figure_formats,
)
