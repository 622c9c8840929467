"""Rule tokenization: how one model's tokenizer cuts each language's prompts (paper 004, Table 5)."""

import sys


def main(smk) -> None:
    from xlcons.job import start_job

    start_job(smk)
    from xlcons.evaluators.tokenization import run_tokenization

    run_tokenization(smk.params.tokenizer, smk.input.prompts, smk.output.tokenization, model=smk.wildcards.model)


# Guarded: vLLM starts its engine in a spawned process, which runs this file again (as
# __mp_main__, without the `snakemake` object that Snakemake puts before the script).
if __name__ == "__main__":
    sys.path.insert(0, snakemake.scriptdir)  # noqa: F821 (injected by Snakemake)
    main(snakemake)  # noqa: F821
