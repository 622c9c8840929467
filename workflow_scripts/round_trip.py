"""Rule round_trip: one model's English answers translated en -> l -> en (translationese check).

Input: the English responses file; params: the pivot languages, the translator section,
checkpoint, converted CTranslate2 model and the job's cache; outputs: one round-trip
file per pivot language, in the order of params.langs.
"""

import sys


def main(smk) -> None:
    from xlcons.job import start_job

    start_job(smk)
    from xlcons.translation.round_trip import run_round_trip_job
    from xlcons.translation.sentence_translator import job_translator

    params = smk.params
    spec, degeneration = job_translator(params, smk.threads)
    run_round_trip_job(
        spec,
        smk.input.responses,
        params.langs,
        smk.output.round_trips,
        params.cache,
        degeneration=degeneration,
    )
    from xlcons.job import finish_job

    finish_job(smk)  # its usage ledger, once the outputs are written


# Guarded: vLLM starts its engine in a spawned process, which runs this file again (as
# __mp_main__, without the `snakemake` object that Snakemake puts before the script).
if __name__ == "__main__":
    sys.path.insert(0, snakemake.scriptdir)  # noqa: F821 (injected by Snakemake)
    main(snakemake)  # noqa: F821
