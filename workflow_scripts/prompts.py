"""Rule prompts: one data set's prompts in one language, PROMPTS schema."""

import sys

sys.path.insert(0, snakemake.scriptdir)  # noqa: F821 (injected by Snakemake)
sys.stderr = open(snakemake.log[0], "w")  # noqa: F821
from xlcons.datasets import load_prompts  # noqa: E402
from xlcons.schemas import PROMPTS  # noqa: E402
from xlcons.tables import write_table  # noqa: E402

wildcards = snakemake.wildcards  # noqa: F821
params = snakemake.params  # noqa: F821
table = load_prompts(wildcards.dataset, params.folder, [wildcards.lang], params.selection, params.options)
write_table(table, snakemake.output.prompts, PROMPTS)  # noqa: F821
print(f"{wildcards.dataset}/{wildcards.lang}: {table.num_rows} prompts", file=sys.stderr)
