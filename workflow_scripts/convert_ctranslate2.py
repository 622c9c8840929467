"""Rule convert_translator: the dense NLLB checkpoint converted to CTranslate2, once.

Expects params.conversion: `checkpoint` (checkpoint directory), `quantization` (None, int8,
float16 or bfloat16; xlcons.translation.translators.quantization_for(compute_type)) and
`content` (a local checkpoint's digest, there to rerun the job); output.model (a directory()).
"""

import sys


def main(smk) -> None:
    from xlcons.job import start_job

    start_job(smk)
    from xlcons.translation.translators import convert

    conversion = smk.params.conversion
    convert(conversion["checkpoint"], smk.output.model, conversion["quantization"])


# Guarded: vLLM starts its engine in a spawned process, which runs this file again (as
# __mp_main__, without the `snakemake` object that Snakemake puts before the script).
if __name__ == "__main__":
    sys.path.insert(0, snakemake.scriptdir)  # noqa: F821 (injected by Snakemake)
    main(snakemake)  # noqa: F821
