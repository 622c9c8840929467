"""Rule convert_translator: the dense NLLB checkpoint converted to CTranslate2, once.

Expects params.checkpoint (checkpoint directory), params.quantization (None, int8, float16 or
bfloat16; xlcons.translation.translators.quantization_for(compute_type)); output.model
(a directory()).
"""

import sys

sys.path.insert(0, snakemake.scriptdir)  # noqa: F821 (injected by Snakemake)
from xlcons.job import start_job  # noqa: E402


def main(smk) -> None:
    start_job(smk)
    from xlcons.translation.translators import convert

    convert(smk.params.checkpoint, smk.output.model, smk.params.quantization)


# Guarded: vLLM starts its engine in a spawned process, which runs this file again.
if __name__ == "__main__":
    main(snakemake)  # noqa: F821
