# Empathy consistency (Gupta et al. 2025): one classifier per EPITOME mechanism (ER, IP, EX) is
# trained once on the committed seeker-post split (TF-IDF on a CPU in seconds, or a
# fine-tuned encoder on a GPU); each model's English and translated answers get an
# empathy profile, and a language's consistency is the share of items whose profiles match
# (per translator, `{via}`, with several translators). The decisions (which classifier,
# where it goes, its options and hardware) are xlcons.evaluators.empathy.plan's.

EMPATHY = PLAN.planner("empathy")

if PLAN.evaluator_datasets("empathy"):

    rule train_empathy_classifier:
        input:
            data=PLAN.dataset_location("empathy", RESOURCES),
            encoder=(
                PLAN.model_inputs(EMPATHY.encoder_key, RESOURCES)
                if EMPATHY.fine_tunes()
                else []
            ),
        output:
            model=directory(EMPATHY.classifier_dir(RESOURCES, "{mechanism}")),
            evaluation=EMPATHY.classifier_evaluation(RESULTS, "{mechanism}"),
        log:
            "logs/evaluate/empathy/train_{mechanism}.log",
        benchmark:
            f"{RESULTS}/benchmarks/evaluate/empathy/train_{{mechanism}}.tsv"
        wildcard_constraints:
            mechanism="|".join(EMPATHY.mechanisms),
        conda:
            "../envs/evaluate.yaml"
        threads: 2
        resources:
            gpu=EMPATHY.gpus(),
            mem_mb=lambda wildcards, attempt: EMPATHY.training_mem_mb(attempt),
            runtime=lambda wildcards, attempt: EMPATHY.training_runtime(attempt),
        params:
            kind=EMPATHY.classifier,
            data=lambda wildcards: PLAN.dataset_folder("empathy", RESOURCES),
            options=lambda wildcards: EMPATHY.training_options(
                wildcards.mechanism, PLAN.local_path(EMPATHY.encoder_key, RESOURCES)
            ),
            encoder_content=(
                PLAN.content(EMPATHY.encoder_key) if EMPATHY.fine_tunes() else None
            ),
        script:
            "../workflow_scripts/evaluate.py"

    rule empathy_consistency:
        input:
            classifiers=[
                EMPATHY.classifier_dir(RESOURCES, m) for m in EMPATHY.mechanisms
            ],
            prompts=get_english_prompts,
            english=get_english_response,
            responses=get_responses,
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
            gpu=EMPATHY.gpus(),
            mem_mb=8000,
            runtime=120,
        params:
            refusals=PLAN.refusals(),
        script:
            "../workflow_scripts/evaluate.py"
