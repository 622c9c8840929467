# Empathy consistency (paper 000): one classifier per EPITOME mechanism (ER, IP, EX) is
# trained once on the committed seeker-post split (TF-IDF on a CPU in seconds, or a
# fine-tuned encoder on a GPU); each model's English and translated answers get an
# empathy profile, and a language's consistency is the share of items whose profiles match
# (per translator, `{via}`, with several translators).

if PLAN.evaluator_datasets("empathy"):

    rule train_empathy_classifier:
        input:
            data=PLAN.dataset_location("empathy", RESOURCES),
            encoder=(
                PLAN.model_inputs(EMPATHY_ENCODER, RESOURCES)
                if empathy_fine_tunes()
                else []
            ),
        output:
            model=directory(empathy_classifier_dir("{mechanism}")),
            evaluation=empathy_classifier_evaluation("{mechanism}"),
        log:
            "logs/evaluate/empathy/train_{mechanism}.log",
        benchmark:
            f"{RESULTS}/benchmarks/evaluate/empathy/train_{{mechanism}}.tsv"
        wildcard_constraints:
            mechanism="|".join(MECHANISMS),
        conda:
            "../envs/evaluate.yaml"
        threads: 2
        resources:
            gpu=get_empathy_training_gpus,
            mem_mb=get_empathy_training_mem_mb,
            runtime=get_empathy_training_runtime,
        params:
            kind=config["evaluators"]["empathy"]["classifier"],
            data=get_epitome_folder,
            options=get_empathy_training_options,
            encoder_content=get_empathy_encoder_content,
        script:
            "../workflow_scripts/evaluate.py"

    rule empathy_consistency:
        input:
            classifiers=[empathy_classifier_dir(m) for m in MECHANISMS],
            prompts=get_english_prompts,
            english=get_english_response,
            translations=get_translations_into_english,
        output:
            per_item=translated_evaluation("empathy_items"),
            scores=translated_evaluation("empathy_scores"),
        log:
            "logs/evaluate/{via}{dataset}/{model}/empathy.log",
        benchmark:
            f"{RESULTS}/benchmarks/evaluate/{{via}}{{dataset}}/{{model}}/empathy.tsv"
        wildcard_constraints:
            dataset=scored_datasets("empathy"),
        conda:
            "../envs/evaluate.yaml"
        threads: 2
        resources:
            gpu=get_empathy_training_gpus,
            mem_mb=8000,
            runtime=120,
        script:
            "../workflow_scripts/evaluate.py"
