# Translation to English (paper 000): each response is split into sentences with its
# language's splitter, translated by NLLB (transformers or CTranslate2), degenerate
# translations repaired by sampling, and reassembled with the original layout. One job
# per (data set, model) loads the translator once for every language.

if PLAN.ctranslate2_dir(RESOURCES):

    rule convert_translator:
        input:
            weights=get_translator_checkpoint,
        output:
            model=directory(PLAN.ctranslate2_dir(RESOURCES)),
        log:
            "logs/translate/convert_translator.log",
        conda:
            "../envs/translate.yaml"
        resources:
            mem_mb=32000,
            runtime=120,
        params:
            checkpoint=get_translator_dir,
            quantization=get_ctranslate2_quantization,
        script:
            "../workflow_scripts/convert_ctranslate2.py"


for dataset in PLAN.translation_datasets():

    rule:
        name:
            f"translate_{dataset}"
        input:
            responses=response_patterns(dataset),
            weights=get_translator_weights,
            lid=get_translation_lid,
        output:
            translations=translation_patterns(dataset, "translations"),
            sentences=translation_patterns(dataset, "sentences"),
        log:
            f"logs/translate/{dataset}/{{model}}.log",
        benchmark:
            f"{RESULTS}/benchmarks/translate/{dataset}/{{model}}.tsv"
        conda:
            "../envs/translate.yaml"
        threads: 2
        resources:
            gpu=config["translator"]["gpus"],
            mem_mb=16000,
            runtime=720,
        params:
            translator=config["translator"],
            checkpoint=get_translator_dir,
            converted=PLAN.ctranslate2_dir(RESOURCES),
            lid=get_translation_lid_path,
            label_scheme=config["evaluators"]["language_id"]["label_scheme"],
            cache=f"{RESULTS}/cache/translate/{dataset}/{{model}}.jsonl",
        script:
            "../workflow_scripts/translate.py"
