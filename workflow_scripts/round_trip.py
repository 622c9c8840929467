"""Rule round_trip: one model's English answers translated en -> l -> en (translationese check).

Input: the English responses file; params: the pivot languages, the translator section,
checkpoint, converted CTranslate2 model and the job's cache; outputs: one round-trip
file per pivot language, in the order of params.langs.
"""

import sys

sys.path.insert(0, snakemake.scriptdir)  # noqa: F821 (injected by Snakemake)
from xlcons.job import start_job  # noqa: E402


def main(smk) -> None:
    start_job(smk)
    from xlcons.translation.stage import job_translator, run_round_trip_job

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


# Guarded: vLLM starts its engine in a spawned process, which runs this file again.
if __name__ == "__main__":
    main(snakemake)  # noqa: F821
