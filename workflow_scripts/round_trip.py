"""Rule round_trip: one model's English answers translated en -> l -> en (translationese check).

Input: the English responses file; params: the pivot languages, the translator section,
checkpoint, converted CTranslate2 model and the job's cache; outputs: one round-trip
file per pivot language, in the order of params.langs.
"""

import sys

sys.path.insert(0, snakemake.scriptdir)  # noqa: F821 (injected by Snakemake)
from xlcons.job import start_job  # noqa: E402

start_job(snakemake)  # noqa: F821
from xlcons.translation.stage import job_translator, run_round_trip_job  # noqa: E402

params = snakemake.params  # noqa: F821
spec, degeneration = job_translator(params, snakemake.threads)  # noqa: F821
run_round_trip_job(
    spec,
    snakemake.input.responses,  # noqa: F821
    params.langs,
    snakemake.output.round_trips,  # noqa: F821
    params.cache,
    degeneration=degeneration,
)
