"""Rule prompts: one data set's prompts in one language, PROMPTS schema."""

import sys

sys.path.insert(0, snakemake.scriptdir)  # noqa: F821 (injected by Snakemake)
from xlcons.job import start_job  # noqa: E402

start_job(snakemake)  # noqa: F821
from xlcons.datasets import run_loader  # noqa: E402
from xlcons.schemas import PROMPTS  # noqa: E402
from xlcons.tables import write_table  # noqa: E402

wildcards, params = snakemake.wildcards, snakemake.params  # noqa: F821
table = run_loader(params.loader, params.data, [wildcards.lang], params.selection, params.options)
write_table(table, snakemake.output.prompts, PROMPTS)  # noqa: F821
print(f"{wildcards.dataset}/{wildcards.lang}: {table.num_rows} prompts", file=sys.stderr)
