"""Rule fetch_dataset: one released data set into resources/data/<name>, verified."""

import sys
from pathlib import Path

sys.path.insert(0, snakemake.scriptdir)  # noqa: F821 (injected by Snakemake)
from xlcons.job import start_job  # noqa: E402


def main(smk) -> None:
    start_job(smk, offline=False)
    from xlcons.data_sources import DATA_SOURCES
    from xlcons.fetch import fetch_dataset

    params = smk.params.fetch
    fetch_dataset(
        DATA_SOURCES[params["source"]],
        Path(smk.output.manifest).parent,
        mirror=params["mirror"],
    )


# Guarded: vLLM starts its engine in a spawned process, which runs this file again.
if __name__ == "__main__":
    main(snakemake)  # noqa: F821
