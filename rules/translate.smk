# Translation to English (Gupta et al. 2025): each response is split into sentences with its
# language's splitter, translated by NLLB (transformers or CTranslate2), degenerate
# translations repaired by sampling, and reassembled with the original layout. One job
# per (data set, model) loads the translator once for every language. A data set's
# answers are translated when an evaluator that reads translations scores it (or
# translator.datasets names it).


if PLAN.ctranslate2_conversions(RESOURCES):

    # One conversion per checkpoint and compute type, whichever translators share it.
    rule convert_translator:
        input:
            weights=get_conversion_checkpoint,
        output:
            model=directory(f"{RESOURCES}/ctranslate2/{{converted}}"),
        log:
            "logs/translate/convert_translator/{converted}.log",
        wildcard_constraints:
            converted=alternation(
                Path(folder).name for folder in PLAN.ctranslate2_conversions(RESOURCES)
            ),
        conda:
            "../envs/translate.yaml"
        resources:
            mem_mb=32000,
            runtime=120,
        params:
            checkpoint=get_conversion_checkpoint_dir,
            quantization=get_ctranslate2_quantization,
            content=get_conversion_content,
        script:
            "../workflow_scripts/convert_ctranslate2.py"


# One job per (data set, model, translator): `{via}` is empty for the primary translator
# (`translator`) and by-translator/<name>/ for each of `translators`.
for dataset in PLAN.translation_datasets():

    rule:
        name:
            f"translate_{dataset}"
        input:
            responses=PLAN.response_files(dataset, "{model}"),
            weights=get_translator_weights,
            lid=get_translation_lid,
        output:
            translations=PLAN.translation_files(dataset, "{model}", via="{via}"),
            sentences=PLAN.translation_files(
                dataset, "{model}", "sentences", via="{via}"
            ),
            usage=PLAN.usage_file("translate", dataset, "{model}", "{via}"),
        log:
            f"logs/translate/{{via}}{dataset}/{{model}}.log",
        benchmark:
            f"{RESULTS}/benchmarks/translate/{{via}}{dataset}/{{model}}.tsv"
        wildcard_constraints:
            via=via_alternation(PLAN.translator_vias(dataset)),
        conda:
            "../envs/translate.yaml"
        threads: 2
        resources:
            gpu=get_translator_gpus,
            mem_mb=get_translator_mem_mb,
            runtime=720,
        params:
            translator=get_translator_fields,
            checkpoint=get_translator_dir,
            converted=get_ctranslate2_dir,
            lid=get_translation_lid_path,
            lid_content=get_translation_lid_content,
            label_scheme=PLAN.lid_label_scheme(),
            cache=translator_cache("translate", dataset),
        script:
            "../workflow_scripts/translate.py"


# Quality estimation of every translated sentence (translator.qe): one job per (data set,
# model, translator) loads the QE model once (a sentence embedder on a CPU, or COMET in its own env).
for dataset in PLAN.qe_datasets():

    rule:
        name:
            f"translation_qe_{dataset}"
        input:
            sentences=PLAN.translation_files(
                dataset, "{model}", "sentences", via="{via}"
            ),
            qe_model=PLAN.model_inputs(QE_MODEL, RESOURCES),
            lid=PLAN.model_inputs(LANGUAGE_ID, RESOURCES),
        output:
            qe=PLAN.qe_files(dataset, "{model}", via="{via}"),
            usage=PLAN.usage_file("translation_qe", dataset, "{model}", "{via}"),
        log:
            f"logs/translate/{{via}}{dataset}/{{model}}.qe.log",
        benchmark:
            f"{RESULTS}/benchmarks/translation_qe/{{via}}{dataset}/{{model}}.tsv"
        wildcard_constraints:
            via=via_alternation(PLAN.translator_vias(dataset)),
        conda:
            PLAN.qe_env(ENVS)
        threads: 2
        resources:
            gpu=PLAN.qe_gpus(),
            mem_mb=8000,
            runtime=240,
        params:
            qe=PLAN.qe_fields(),
            model_path=get_qe_model_path,
            model_name=PLAN.qe_model_name(),
            lid=get_language_id_path,
            label_scheme=PLAN.lid_label_scheme(),
        script:
            "../workflow_scripts/translation_qe.py"


# Prompt sets written in English only (Gupta et al. 2025's, a user's `translated` sets): one job
# per data set carries the English prompts into every other configured language, with a
# review file per language.
for dataset in PLAN.prompt_translated_datasets():
    targets = PLAN.prompt_translation_languages(dataset)

    rule:
        name:
            f"translate_prompts_{dataset}"
        input:
            prompts=PLAN.prompt_file(dataset, "en"),
            weights=get_translator_weights,
        output:
            prompts=[PLAN.prompt_file(dataset, lang) for lang in targets],
            reviews=[PLAN.prompt_review_file(dataset, lang) for lang in targets],
            usage=PLAN.usage_file("translate_prompts", dataset),
        log:
            f"logs/translate_prompts/{dataset}.log",
        benchmark:
            f"{RESULTS}/benchmarks/translate_prompts/{dataset}.tsv"
        conda:
            "../envs/translate.yaml"
        threads: 2
        resources:
            gpu=get_translator_gpus,
            mem_mb=get_translator_mem_mb,
            runtime=240,
        params:
            langs=targets,
            translator=get_translator_fields,
            checkpoint=get_translator_dir,
            converted=get_ctranslate2_dir,
            cache=PLAN.cache_file("translate_prompts", dataset),
        script:
            "../workflow_scripts/translate_prompts.py"


# Translationese check (Gupta et al. 2025): each model's English answers go en -> l -> en, to be
# scored against the originals (evaluators.information.round_trip_languages).
if PLAN.round_trip_languages():

    rule round_trip:
        input:
            responses=get_english_response,
            weights=get_translator_weights,
        output:
            round_trips=[
                PLAN.round_trip_file("{dataset}", "{model}", lang)
                for lang in PLAN.round_trip_languages()
            ],
            usage=PLAN.usage_file("round_trip", "{dataset}", "{model}"),
        log:
            "logs/round_trip/{dataset}/{model}.log",
        benchmark:
            f"{RESULTS}/benchmarks/round_trip/{{dataset}}/{{model}}.tsv"
        wildcard_constraints:
            dataset=alternation(PLAN.round_trip_datasets()),
        conda:
            "../envs/translate.yaml"
        threads: 2
        resources:
            gpu=get_translator_gpus,
            mem_mb=get_translator_mem_mb,
            runtime=480,
        params:
            langs=PLAN.round_trip_languages(),
            translator=get_translator_fields,
            checkpoint=get_translator_dir,
            converted=get_ctranslate2_dir,
            cache=job_cache("round_trip"),
        script:
            "../workflow_scripts/round_trip.py"
