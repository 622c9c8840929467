"""Rule translate_<data set>: one model's responses, one or more languages, to English.

Inputs: the responses files; params: the translator section, the checkpoint directory,
the converted CTranslate2 model (ctranslate2 backend), the language-ID model file (when
translator.detect_response_language), its label scheme and the job's cache; outputs: one
translations and one sentences file per responses file.
"""

import logging
import os
import sys

# Torch and CTranslate2 size their thread pools from this: keep to the job's cores.
os.environ.setdefault("OMP_NUM_THREADS", str(snakemake.threads))  # noqa: F821

sys.path.insert(0, snakemake.scriptdir)  # noqa: F821 (injected by Snakemake)
sys.stderr = open(snakemake.log[0], "w")  # noqa: F821
logging.basicConfig(stream=sys.stderr, level=logging.INFO, format="%(asctime)s %(message)s")
from xlcons.translation.stage import DegenerationSpec, run_translation_job  # noqa: E402
from xlcons.translation.translators import TranslatorSpec  # noqa: E402

params = snakemake.params  # noqa: F821
section = params.translator
spec = TranslatorSpec.from_config(section, params.checkpoint, params.converted, threads=snakemake.threads)  # noqa: F821
run_translation_job(
    spec,
    snakemake.input.responses,  # noqa: F821
    snakemake.output.translations,  # noqa: F821
    snakemake.output.sentences,  # noqa: F821
    params.cache,
    degeneration=DegenerationSpec.from_config(section.get("degeneration")),
    detect_response_language=section.get("detect_response_language", True),
    language_id_model=params.lid,
    label_scheme=params.label_scheme,
)
