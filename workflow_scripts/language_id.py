"""Rule language_id: the language of every response of one model to one data set, and its fidelity class."""

import sys


def main(smk) -> None:
    from xlcons.job import start_job

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


# Guarded: vLLM starts its engine in a spawned process, which runs this file again (as
# __mp_main__, without the `snakemake` object that Snakemake puts before the script).
if __name__ == "__main__":
    sys.path.insert(0, snakemake.scriptdir)  # noqa: F821 (injected by Snakemake)
    main(snakemake)  # noqa: F821
