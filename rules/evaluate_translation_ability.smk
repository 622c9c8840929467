# Translation ability (Xing et al. 2024 §5): the model under test translates FLORES-200 sentences
# among the run's languages; chrF and chrF++ per direction (sacrebleu, corpus level). One
# job per (data set, model). Tables and figures against xSC/xAC: rules/report.smk.


if PLAN.evaluator_datasets("translation_ability"):

    rule translation_ability:
        input:
            prompts=get_prompts,
            responses=get_responses,
        output:
            per_item=evaluation("translation_items"),
            directions=evaluation("translation_directions"),
        log:
            "logs/evaluate/{dataset}/{model}/translation_ability.log",
        benchmark:
            f"{RESULTS}/benchmarks/evaluate/{{dataset}}/{{model}}/translation_ability.tsv"
        wildcard_constraints:
            dataset=scored_datasets("translation_ability"),
        conda:
            "../envs/evaluate.yaml"
        resources:
            mem_mb=4000,
            runtime=30,
        params:
            answer=PLAN.evaluator_option("translation_ability", "answer"),
        script:
            "../workflow_scripts/evaluate.py"
