# Language fidelity (Holtermann et al. 2024): the language of every answer by fastText LID (GlotLID),
# and whether it is the prompted language, English or another. One job per (data set,
# model): the LID model loads once and serves every language.

if PLAN.evaluator_datasets("language_id"):

    rule language_id:
        input:
            responses=get_responses,
            lid=PLAN.model_inputs(LANGUAGE_ID, RESOURCES),
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
