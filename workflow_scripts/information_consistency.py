"""Rules information_consistency and translationese_check: one model's answers, facts checked both ways.

Inputs: the English responses and the per-language translations (information_consistency)
or the per-language round trips (translationese_check); params: the evaluator LLM's spec,
the token caps and the job's cache; outputs: items, facts and per-language scores.
"""

import sys


def main(smk) -> None:
    from xlcons.job import start_job

    start_job(smk)
    from xlcons.evaluators.information.stage import (
        run_information_job,
        run_language_scores_job,
        run_round_trip_information_job,
    )
    from xlcons.generation.base import ModelSpec

    params, inputs, output = smk.params, smk.input, smk.output
    llm = ModelSpec.from_config("information", params.llm, params.llm["location"])
    if "round_trips" in inputs.keys():
        run_round_trip_information_job(llm, inputs.round_trips, output.per_item, output.facts, params.cache, **params.options)
    else:
        run_information_job(llm, inputs.english, inputs.translations, output.per_item, output.facts, params.cache, **params.options)
    run_language_scores_job(output.per_item, output.scores)


# Guarded: vLLM starts its engine in a spawned process, which runs this file again (as
# __mp_main__, without the `snakemake` object that Snakemake puts before the script).
if __name__ == "__main__":
    sys.path.insert(0, snakemake.scriptdir)  # noqa: F821 (injected by Snakemake)
    main(snakemake)  # noqa: F821
