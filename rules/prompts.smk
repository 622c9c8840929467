# Prompt sets: one table per (data set, language), in the PROMPTS schema.
# A new language adds a file and leaves the others untouched.


localrules:
    prompts,


rule prompts:
    input:
        data=get_dataset_files,
    output:
        prompts=f"{RESULTS}/prompts/{{dataset}}/{{lang}}.parquet",
    log:
        "logs/prompts/{dataset}/{lang}.log",
    conda:
        "../envs/generate.yaml"
    resources:
        mem_mb=2000,
        runtime=10,
    params:
        folder=get_dataset_folder,
        selection=get_dataset_items,
        options=get_dataset_options,
    script:
        "../workflow_scripts/prompts.py"
