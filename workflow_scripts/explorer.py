"""Rule explorer: the results, item scores, per-item tables, prompts, answers and translations in;
the item explorer (results/explorer/) out.

Inputs are named as xlcons.plan.explorer names them (the evaluators' outputs by their
registered names); params: the generators, in the config's order (the heatmaps' rows).
"""

import sys


def main(smk) -> None:
    from xlcons.job import start_job

    start_job(smk)
    from xlcons.reports.explorer import build_explorer

    inputs = smk.input
    build_explorer({name: list(inputs[name]) for name in inputs.keys()}, smk.output.explorer, models=smk.params.models)


# Guarded: vLLM starts its engine in a spawned process, which runs this file again (as
# __mp_main__, without the `snakemake` object that Snakemake puts before the script).
if __name__ == "__main__":
    sys.path.insert(0, snakemake.scriptdir)  # noqa: F821 (injected by Snakemake)
    main(snakemake)  # noqa: F821
