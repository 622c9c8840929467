"""Rule convert_translator: the dense NLLB checkpoint converted to CTranslate2, once.

Expects params.checkpoint (checkpoint directory), params.quantization (None, int8, float16 or
bfloat16; xlcons.translation.translators.quantization_for(compute_type)); output.model
(a directory()).
"""

import logging
import sys

sys.path.insert(0, snakemake.scriptdir)  # noqa: F821 (injected by Snakemake)
sys.stderr = open(snakemake.log[0], "w")  # noqa: F821
logging.basicConfig(stream=sys.stderr, level=logging.INFO, format="%(asctime)s %(message)s")
from xlcons.translation.translators import convert  # noqa: E402

convert(snakemake.params.checkpoint, snakemake.output.model, snakemake.params.quantization)  # noqa: F821
