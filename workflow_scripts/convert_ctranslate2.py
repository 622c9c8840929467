"""Rule convert_translator: the dense NLLB checkpoint converted to CTranslate2, once.

Expects params.checkpoint (checkpoint directory), params.quantization (None, int8, float16 or
bfloat16; xlcons.translation.ctranslate2_conversion.quantization_for(compute_type)); output.model
(a directory()). params.content (a local checkpoint's digest) is there to rerun the job.
"""

import sys


def main(smk) -> None:
    from xlcons.job import start_job

    start_job(smk)
    from xlcons.translation.ctranslate2_conversion import convert

    convert(smk.params.checkpoint, smk.output.model, smk.params.quantization)


# Guarded: vLLM starts its engine in a spawned process, which runs this file again (as
# __mp_main__, without the `snakemake` object that Snakemake puts before the script).
if __name__ == "__main__":
    sys.path.insert(0, snakemake.scriptdir)  # noqa: F821 (injected by Snakemake)
    main(snakemake)  # noqa: F821
