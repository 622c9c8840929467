# Language fidelity (Holtermann et al. 2024): the language of every answer by fastText LID (GlotLID),
# and whether it is the prompted language, English or another. One job per (data set,
# model): the LID model loads once and serves every language.

if PLAN.evaluator_datasets("language_id"):

    rule language_id:
        input:
            responses=get_responses,
            lid=PLAN.model_inputs(LANGUAGE_ID, RESOURCES),
            measurability=PLAN.measurability_file("language_id", "{dataset}"),
        output:
            fidelity=evaluation("fidelity"),
        log:
            "logs/evaluate/{dataset}/{model}/language_id.log",
        benchmark:
            f"{RESULTS}/benchmarks/evaluate/{{dataset}}/{{model}}/language_id.tsv"
        wildcard_constraints:
            dataset=scored_datasets("language_id"),
        conda:
            "../envs/evaluate.yaml"
        resources:
            mem_mb=8000,
            runtime=60,
        params:
            model_path=get_language_id_path,
            model_content=PLAN.content(LANGUAGE_ID),
            label_scheme=PLAN.lid_label_scheme(),
            unsupported=PLAN.evaluator_option("language_id", "unsupported_languages"),
            robust=PLAN.evaluator_option("language_id", "robust"),
        script:
            "../workflow_scripts/evaluate.py"

    # The faithful-text check (xlcons.measurability): the data set's own prompts scored for
    # fidelity as answers; per language the share identified as its language and whether it is
    # measurable (tables/measurability.csv), which every model's job above applies. One job per set.
    rule language_id_faithful:
        input:
            prompts=PLAN.prompt_table("{dataset}"),
            lid=PLAN.model_inputs(LANGUAGE_ID, RESOURCES),
        output:
            measurability=PLAN.measurability_file("language_id", "{dataset}"),
        log:
            "logs/measurability/{dataset}/language_id.log",
        wildcard_constraints:
            dataset=scored_datasets("language_id"),
        conda:
            "../envs/evaluate.yaml"
        resources:
            mem_mb=8000,
            runtime=30,
        params:
            model_path=get_language_id_path,
            model_content=PLAN.content(LANGUAGE_ID),
            label_scheme=PLAN.lid_label_scheme(),
            unsupported=PLAN.evaluator_option("language_id", "unsupported_languages"),
            measurable=PLAN.evaluator_option("language_id", "measurable"),
            threshold=PLAN.evaluator_option("language_id", "faithful_text_threshold"),
            checked=lambda wildcards: PLAN.faithful_prompts(wildcards.dataset),
        script:
            "../workflow_scripts/evaluate.py"
