"""Rule fetch_dataset: one released data set into resources/data/<name>, verified."""

import sys
from pathlib import Path


def main(smk) -> None:
    from xlcons.job import start_job

    start_job(smk, offline=False)
    from xlcons.data_sources import DATA_SOURCES
    from xlcons.fetch.dataset import fetch_dataset

    params = smk.params.fetch
    fetch_dataset(
        DATA_SOURCES[params["source"]],
        Path(smk.output.manifest).parent,
        mirror=params["mirror"],
    )


# Guarded: vLLM starts its engine in a spawned process, which runs this file again (as
# __mp_main__, without the `snakemake` object that Snakemake puts before the script).
if __name__ == "__main__":
    sys.path.insert(0, snakemake.scriptdir)  # noqa: F821 (injected by Snakemake)
    main(snakemake)  # noqa: F821
