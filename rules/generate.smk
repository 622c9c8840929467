# Generation: one job per (data set, model) loads the model once and answers every
# language; one response table per language. A per-item cache beside the results lets a
# killed job resume and a rerun generate only what is new.

for dataset in PLAN.generation_datasets():

    rule:
        name:
            f"generate_{dataset}"
        input:
            prompts=prompt_files(dataset),
            weights=get_generator_weights,
        output:
            responses=response_patterns(dataset),
        log:
            f"logs/generate/{dataset}/{{model}}.log",
        benchmark:
            f"{RESULTS}/benchmarks/generate/{dataset}/{{model}}.tsv"
        conda:
            get_generator_env
        threads: 2
        resources:
            gpu=get_generator_gpus,
            mem_mb=get_generator_mem_mb,
            runtime=720,
        params:
            model=get_generator_spec,
            max_new_tokens=PLAN.max_new_tokens(dataset),
            cache=generation_cache(dataset),
        script:
            "../workflow_scripts/generate.py"
