"""Every evaluator rule: the function its registry entry names for the rule (EvaluatorInfo.jobs),
called with the Snakemake job object (its input, output, params, wildcards)."""

import sys


def main(smk) -> None:
    from xlcons.job import start_job

    start_job(smk)  # before the job's module is imported: it may import torch
    from xlcons.evaluators.registry import RULE_JOBS, resolve

    resolve(RULE_JOBS[smk.rule])(smk)
    from xlcons.job import finish_job

    finish_job(smk)  # its usage ledger, once the outputs are written


# Guarded: vLLM starts its engine in a spawned process, which runs this file again (as
# __mp_main__, without the `snakemake` object that Snakemake puts before the script).
if __name__ == "__main__":
    sys.path.insert(0, snakemake.scriptdir)  # noqa: F821 (injected by Snakemake)
    main(snakemake)  # noqa: F821
