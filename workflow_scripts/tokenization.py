"""Rule tokenization: how one model's tokenizer cuts each language's prompts (paper 004, Table 5)."""

import sys

sys.path.insert(0, snakemake.scriptdir)  # noqa: F821 (injected by Snakemake)
from xlcons.job import start_job  # noqa: E402


def main(smk) -> None:
    start_job(smk)
    from xlcons.evaluators.tokenization import run_tokenization

    run_tokenization(smk.params.tokenizer, smk.input.prompts, smk.output.tokenization, model=smk.wildcards.model)


# Guarded: vLLM starts its engine in a spawned process, which runs this file again.
if __name__ == "__main__":
    main(snakemake)  # noqa: F821
