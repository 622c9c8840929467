"""Rule empathy_consistency: one model's English and translated answers profiled by the three classifiers.

Inputs: the ER, IP and EX classifier folders, the English prompts (seeker posts), the
English responses and the per-language translations; outputs: items and per-language scores.
"""

import sys


def main(smk) -> None:
    from xlcons.job import start_job

    start_job(smk)
    from xlcons.evaluators.empathy.profiles import run_empathy_job

    inputs, output = smk.input, smk.output
    classifiers = dict(zip(("ER", "IP", "EX"), inputs.classifiers))
    run_empathy_job(classifiers, inputs.prompts, inputs.english, inputs.translations, output.per_item, out_scores=output.scores)


# Guarded: vLLM starts its engine in a spawned process, which runs this file again (as
# __mp_main__, without the `snakemake` object that Snakemake puts before the script).
if __name__ == "__main__":
    sys.path.insert(0, snakemake.scriptdir)  # noqa: F821 (injected by Snakemake)
    main(snakemake)  # noqa: F821
