# Language confusion (Marchisio et al. 2024): per answer, line-level language ID (does it
# switch language part way?) and, for non-Latin-script languages, English words inside
# it. One job per (data set, model); the language-ID model loads once. The `lcb` rule
# (default) reads its own lid.176 and word list (and the language_id model for languages
# lid.176 has no label for), the `strict` rule the language_id model.
LANGUAGE_CONFUSION_MODELS = PLAN.evaluator_model_keys("language_confusion")

if PLAN.evaluator_datasets("language_confusion"):

    rule language_confusion:
        input:
            responses=get_responses,
            measurability=PLAN.measurability_file("language_confusion", "{dataset}"),
            models=[
                path
                for key in LANGUAGE_CONFUSION_MODELS
                for path in PLAN.model_inputs(key, RESOURCES)
            ],
        output:
            per_item=evaluation("language_confusion"),
            lines=evaluation("language_confusion_lines"),
        log:
            "logs/evaluate/{dataset}/{model}/language_confusion.log",
        benchmark:
            f"{RESULTS}/benchmarks/evaluate/{{dataset}}/{{model}}/language_confusion.tsv"
        wildcard_constraints:
            dataset=scored_datasets("language_confusion"),
        conda:
            "../envs/evaluate.yaml"
        resources:
            mem_mb=8000,
            runtime=60,
        params:
            rule=PLAN.evaluator_option("language_confusion", "rule"),
            model_paths={
                key: PLAN.local_path(key, RESOURCES)
                for key in LANGUAGE_CONFUSION_MODELS
            },
            model_content={key: PLAN.content(key) for key in LANGUAGE_CONFUSION_MODELS},
            label_scheme=PLAN.lid_label_scheme(),
            min_line_tokens=PLAN.evaluator_option(
                "language_confusion", "min_line_tokens"
            ),
            min_confidence=PLAN.evaluator_option("language_confusion", "min_confidence"),
            measurable=PLAN.evaluator_option("language_confusion", "measurable"),
        script:
            "../workflow_scripts/evaluate.py"

    # The faithful-text check (xlcons.measurability): the data set's own prompts scored as
    # answers by the same rule and models; per language its LPR and whether it is measurable
    # (tables/measurability.csv), which every model's job above applies. One job per data set.
    rule language_confusion_faithful:
        input:
            prompts=PLAN.prompt_table("{dataset}"),
            models=[
                path
                for key in LANGUAGE_CONFUSION_MODELS
                for path in PLAN.model_inputs(key, RESOURCES)
            ],
        output:
            measurability=PLAN.measurability_file("language_confusion", "{dataset}"),
        log:
            "logs/measurability/{dataset}/language_confusion.log",
        wildcard_constraints:
            dataset=scored_datasets("language_confusion"),
        conda:
            "../envs/evaluate.yaml"
        resources:
            mem_mb=8000,
            runtime=30,
        params:
            rule=PLAN.evaluator_option("language_confusion", "rule"),
            model_paths={
                key: PLAN.local_path(key, RESOURCES)
                for key in LANGUAGE_CONFUSION_MODELS
            },
            model_content={key: PLAN.content(key) for key in LANGUAGE_CONFUSION_MODELS},
            label_scheme=PLAN.lid_label_scheme(),
            min_line_tokens=PLAN.evaluator_option(
                "language_confusion", "min_line_tokens"
            ),
            min_confidence=PLAN.evaluator_option("language_confusion", "min_confidence"),
            measurable=PLAN.evaluator_option("language_confusion", "measurable"),
            threshold=PLAN.evaluator_option(
                "language_confusion", "faithful_text_threshold"
            ),
            checked=lambda wildcards: PLAN.faithful_prompts(wildcards.dataset),
            reference=lambda wildcards: PLAN.reference_scored(wildcards.dataset),
        script:
            "../workflow_scripts/evaluate.py"

    # The Language Confusion Benchmark's own summary, when its data sets are scored: LPR, WPR
    # and LCPR per (model, task), averaged over sources and languages as its scorer does.
    LCB_TASK_DATASETS = [
        dataset
        for dataset in PLAN.evaluator_datasets("language_confusion")
        if dataset in ("lcb-monolingual", "lcb-crosslingual")
    ]
    if LCB_TASK_DATASETS:
        LCB_TASK_TABLES = report_outputs("xlcons.reports.lcb", "language_confusion")
        REPORT_TARGETS.extend(LCB_TASK_TABLES)

        localrules:
            lcb_tasks,

        rule lcb_tasks:
            input:
                per_item=[
                    path
                    for dataset in LCB_TASK_DATASETS
                    for path in paper_files(
                        "language_confusion", "language_confusion", dataset
                    )
                ],
            output:
                tables=reported(
                    LCB_TASK_TABLES, "Language confusion", {"lcb_tasks": "lcb_tasks"}
                ),
            log:
                "logs/report/lcb_tasks.log",
            conda:
                "../envs/evaluate.yaml"
            resources:
                mem_mb=4000,
                runtime=30,
            params:
                table_formats=PLAN.table_formats(),
            script:
                "../workflow_scripts/evaluate.py"
