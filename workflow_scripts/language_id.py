"""Rule language_id: the language of every response of one model to one data set, and its fidelity class."""

import sys

sys.path.insert(0, snakemake.scriptdir)  # noqa: F821 (injected by Snakemake)
from xlcons.job import start_job  # noqa: E402


def main(smk) -> None:
    start_job(smk)
    from xlcons.evaluators.language_id import run_language_id

    params = smk.params
    run_language_id(
        smk.input.responses,
        smk.output.fidelity,
        params.model_path,
        params.label_scheme,
        params.unsupported,
        params.robust,
    )


# Guarded: vLLM starts its engine in a spawned process, which runs this file again.
if __name__ == "__main__":
    main(snakemake)  # noqa: F821
