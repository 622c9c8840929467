"""Rule fetch_model: one Hugging Face model into resources/models/<name>."""

import logging
import sys
from pathlib import Path

sys.path.insert(0, snakemake.scriptdir)  # noqa: F821 (injected by Snakemake)
from xlcons.fetch import fetch_model  # noqa: E402

logging.basicConfig(filename=snakemake.log[0], level=logging.INFO, format="%(asctime)s %(message)s")  # noqa: F821
source = snakemake.params.source  # noqa: F821
fetch_model(
    Path(snakemake.output.marker).parent,  # noqa: F821
    hf_id=source["hf_id"],
    revision=source["revision"],
    hf_file=source["hf_file"],
)
