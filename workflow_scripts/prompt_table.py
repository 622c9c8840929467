"""Rule prompt_table: one data set's per-language prompt files as one table, for the jobs that read every language."""

import sys

sys.path.insert(0, snakemake.scriptdir)  # noqa: F821 (injected by Snakemake)
from xlcons.job import start_job  # noqa: E402

start_job(snakemake)  # noqa: F821
from xlcons.schemas import PROMPTS  # noqa: E402
from xlcons.tables import concat_table_files  # noqa: E402

concat_table_files(snakemake.input.prompts, snakemake.output.table, PROMPTS)  # noqa: F821
