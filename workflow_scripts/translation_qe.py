"""Rule translation_qe_<data set>: the quality estimate of every translated sentence of one model's answers."""

import sys


def main(smk) -> None:
    from xlcons.job import start_job

    start_job(smk)
    from xlcons.translation.quality import run_qe_job

    params = smk.params
    run_qe_job(
        smk.input.sentences,
        smk.output.qe,
        params.qe,
        params.model_path,
        params.model_name,
        lid_path=params.lid,
        label_scheme=params.label_scheme,
    )
    from xlcons.job import finish_job

    finish_job(smk)  # its usage ledger, once the outputs are written


# Guarded: vLLM starts its engine in a spawned process, which runs this file again (as
# __mp_main__, without the `snakemake` object that Snakemake puts before the script).
if __name__ == "__main__":
    sys.path.insert(0, snakemake.scriptdir)  # noqa: F821 (injected by Snakemake)
    main(snakemake)  # noqa: F821
