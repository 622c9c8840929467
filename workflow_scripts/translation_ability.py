"""Rule translation_ability: chrF and chrF++ of one model's translations of one data set."""

import sys


def main(smk) -> None:
    from xlcons.job import start_job

    start_job(smk)
    from xlcons.evaluators.translation_ability import run_translation_ability

    run_translation_ability(
        smk.input.prompts,
        smk.input.responses,
        smk.output.per_item,
        smk.output.directions,
        answer=smk.params.answer,
    )


# Guarded: vLLM starts its engine in a spawned process, which runs this file again (as
# __mp_main__, without the `snakemake` object that Snakemake puts before the script).
if __name__ == "__main__":
    sys.path.insert(0, snakemake.scriptdir)  # noqa: F821 (injected by Snakemake)
    main(snakemake)  # noqa: F821
