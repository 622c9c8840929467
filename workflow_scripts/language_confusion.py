"""Rule language_confusion: line- and word-level language of every answer of one model to one data set."""

import sys


def main(smk) -> None:
    from xlcons.job import start_job

    start_job(smk)
    from xlcons.evaluators.language_id import run_language_confusion

    params = smk.params
    run_language_confusion(
        smk.input.responses,
        smk.output.per_item,
        params.model_path,
        params.label_scheme,
        min_line_tokens=params.min_line_tokens,
        min_confidence=params.min_confidence,
    )


# Guarded: vLLM starts its engine in a spawned process, which runs this file again (as
# __mp_main__, without the `snakemake` object that Snakemake puts before the script).
if __name__ == "__main__":
    sys.path.insert(0, snakemake.scriptdir)  # noqa: F821 (injected by Snakemake)
    main(snakemake)  # noqa: F821
