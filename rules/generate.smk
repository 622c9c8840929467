# Generation: one job per (data set, model) loads the model once and answers every
# language; one response table per language. A per-item cache beside the results lets a
# killed job resume and a rerun generate only what is new. The model's backend entry
# (xlcons.generation.registry) decides the job's env, GPUs and memory.

for dataset in PLAN.generation_datasets():
    generator = PLAN.llm_job("models.{model}", RESOURCES, ENVS, dataset)

    rule:
        name:
            f"generate_{dataset}"
        input:
            prompts=[PLAN.prompt_table(dataset)],
            weights=generator.weights,
        output:
            responses=PLAN.response_files(dataset, "{model}"),
            table=PLAN.response_table(dataset, "{model}"),
            usage=PLAN.usage_file("generate", dataset, "{model}"),
        log:
            f"logs/generate/{dataset}/{{model}}.log",
        benchmark:
            f"{RESULTS}/benchmarks/generate/{dataset}/{{model}}.tsv"
        conda:
            generator.env
        threads: 2
        resources:
            gpu=generator.gpus,
            mem_mb=generator.mem_mb,
            runtime=720,
        params:
            model=generator.spec,
            languages=PLAN.languages(dataset),
            max_new_tokens=PLAN.max_new_tokens(dataset),
            cache=PLAN.cache_file("generate", dataset, "{model}"),
            max_failed_share=PLAN.max_failed_share(),
        script:
            "../workflow_scripts/generate.py"
