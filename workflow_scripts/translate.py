"""Rule translate_<data set>: one model's responses, one or more languages, to English.

Inputs: the responses files; params: the translator section, the checkpoint directory,
the converted CTranslate2 model (ctranslate2 backend), the language-ID model file (when
translator.detect_response_language), its label scheme and the job's cache; outputs: one
translations and one sentences file per responses file.
"""

import sys


def main(smk) -> None:
    from xlcons.job import start_job

    start_job(smk)
    from xlcons.translation.response_translation import run_translation_job
    from xlcons.translation.sentence_translator import job_translator

    params = smk.params
    section = params.translator
    spec, degeneration = job_translator(params, smk.threads)
    run_translation_job(
        spec,
        smk.input.responses,
        smk.output.translations,
        smk.output.sentences,
        params.cache,
        degeneration=degeneration,
        detect_response_language=section.get("detect_response_language", True),
        language_id_model=params.lid,
        label_scheme=params.label_scheme,
    )
    from xlcons.job import finish_job

    finish_job(smk)  # its usage ledger, once the outputs are written


# Guarded: vLLM starts its engine in a spawned process, which runs this file again (as
# __mp_main__, without the `snakemake` object that Snakemake puts before the script).
if __name__ == "__main__":
    sys.path.insert(0, snakemake.scriptdir)  # noqa: F821 (injected by Snakemake)
    main(snakemake)  # noqa: F821
