# Prompt sets, built-in or the user's own: one table per (data set, language), in the
# PROMPTS schema, by the data set's loader (xlcons.datasets). A new language adds a file
# and leaves the others untouched. Sets written in English only (Gupta et al. 2025's, and the
# user's `translated` sets) get their English table here; rules/translate.smk carries it
# into the other languages.


localrules:
    prompts,
    source_prompts,
    prompt_table,


rule prompts:
    input:
        data=get_dataset_files,
    output:
        prompts=f"{RESULTS}/prompts/{{dataset}}/{{lang}}.parquet",
    log:
        "logs/prompts/{dataset}/{lang}.log",
    wildcard_constraints:
        dataset=alternation(PLAN.native_datasets()),
    conda:
        "../envs/generate.yaml"
    resources:
        mem_mb=2000,
        runtime=10,
    params:
        loader=get_dataset_loader,
        data=get_dataset_folder,
        selection=get_dataset_items,
        options=get_dataset_options,
    script:
        "../workflow_scripts/prompts.py"


use rule prompts as source_prompts with:
    wildcard_constraints:
        dataset=alternation(PLAN.prompt_translated_datasets()),
        lang=alternation(PLAN.source_languages()),


# Every language's prompts in one table: the (data set, model) jobs read this one file, so
# the DAG gains one edge per job, not one per language, as models are added.
rule prompt_table:
    input:
        prompts=get_language_prompts,
    output:
        table=PLAN.prompt_table("{dataset}"),
    log:
        "logs/prompts/{dataset}.log",
    conda:
        "../envs/generate.yaml"
    resources:
        mem_mb=2000,
        runtime=10,
    script:
        "../workflow_scripts/prompt_table.py"
