"""Rule fetch_dataset: one released data set into resources/data/<name>, verified."""

import logging
import sys
from pathlib import Path

sys.path.insert(0, snakemake.scriptdir)  # noqa: F821 (injected by Snakemake)
from xlcons.data_sources import DATA_SOURCES  # noqa: E402
from xlcons.fetch import fetch_dataset  # noqa: E402

logging.basicConfig(filename=snakemake.log[0], level=logging.INFO, format="%(asctime)s %(message)s")  # noqa: F821
params = snakemake.params.fetch  # noqa: F821
fetch_dataset(
    DATA_SOURCES[params["source"]],
    Path(snakemake.output.manifest).parent,  # noqa: F821
    base_url=params["base_url"],
)
