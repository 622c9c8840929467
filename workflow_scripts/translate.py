"""Rule translate_<data set>: one model's responses, one or more languages, to English.

Inputs: the responses files; params: the translator section, the checkpoint directory,
the converted CTranslate2 model (ctranslate2 backend), the language-ID model file (when
translator.detect_response_language), its label scheme and the job's cache; outputs: one
translations and one sentences file per responses file.
"""

import sys

sys.path.insert(0, snakemake.scriptdir)  # noqa: F821 (injected by Snakemake)
from xlcons.job import start_job  # noqa: E402

start_job(snakemake)  # noqa: F821
from xlcons.translation.stage import job_translator, run_translation_job  # noqa: E402

params = snakemake.params  # noqa: F821
section = params.translator
spec, degeneration = job_translator(params, snakemake.threads)  # noqa: F821
run_translation_job(
    spec,
    snakemake.input.responses,  # noqa: F821
    snakemake.output.translations,  # noqa: F821
    snakemake.output.sentences,  # noqa: F821
    params.cache,
    degeneration=degeneration,
    detect_response_language=section.get("detect_response_language", True),
    language_id_model=params.lid,
    label_scheme=params.label_scheme,
)
