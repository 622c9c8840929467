"""Rule fetch_model: one Hugging Face model into resources/models/<name>."""

import sys
from pathlib import Path


def main(smk) -> None:
    from xlcons.job import start_job

    start_job(smk, offline=False)
    from xlcons.fetch.model import fetch_model, fetch_url_file

    source = smk.params.source
    if source.get("url"):
        fetch_url_file(Path(smk.output.marker).parent, url=source["url"], sha256=source["sha256"])
        return
    fetch_model(
        Path(smk.output.marker).parent,
        hf_id=source["hf_id"],
        revision=source["revision"],
        hf_file=source["hf_file"],
    )


# Guarded: vLLM starts its engine in a spawned process, which runs this file again (as
# __mp_main__, without the `snakemake` object that Snakemake puts before the script).
if __name__ == "__main__":
    sys.path.insert(0, snakemake.scriptdir)  # noqa: F821 (injected by Snakemake)
    main(snakemake)  # noqa: F821
