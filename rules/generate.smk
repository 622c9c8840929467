# Generation: one job per (data set, model) loads the model once and answers every
# language; one response table per language. A per-item cache beside the results lets a
# killed job resume and a rerun generate only what is new. The model's backend entry
# (xlcons.generation.registry) decides the job's env, GPUs and memory. With
# `generation.shards: N` (xlcons.plan.shards) the job is N jobs, one per shard of the items
# (`{shard}`: their files are PLAN.job_file's), each with the same env, GPUs and memory, and a
# local job merges their tables into the very outputs of one job.

for dataset in PLAN.generation_datasets():
    generator = PLAN.llm_job("models.{model}", RESOURCES, ENVS, dataset)

    rule:
        name:
            f"generate_{dataset}"
        input:
            prompts=[PLAN.prompt_table(dataset)],
            weights=generator.weights,
        output:
            # a shard job writes its table only (the merge writes the per-language files)
            responses=PLAN.unsharded_files(
                PLAN.response_files(dataset, "{model}"), "generate"
            ),
            table=PLAN.job_file(PLAN.response_table(dataset, "{model}"), "generate"),
            usage=PLAN.job_file(
                PLAN.usage_file("generate", dataset, "{model}"), "generate"
            ),
        log:
            PLAN.job_file(f"logs/generate/{dataset}/{{model}}.log", "generate"),
        benchmark:
            PLAN.job_file(
                f"{RESULTS}/benchmarks/generate/{dataset}/{{model}}.tsv", "generate"
            )
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
            cache=PLAN.job_file(
                PLAN.cache_file("generate", dataset, "{model}"), "generate"
            ),
            max_failed_share=PLAN.max_failed_share(),
        script:
            "../workflow_scripts/generate.py"

    if PLAN.sharded("generate"):

        rule:
            name:
                f"generate_{dataset}_merge"
            input:
                prompts=[PLAN.prompt_table(dataset)],
                shards=PLAN.shard_files(
                    PLAN.response_table(dataset, "{model}"), "generate"
                ),
            output:
                responses=PLAN.response_files(dataset, "{model}"),
                table=PLAN.response_table(dataset, "{model}"),
            log:
                f"logs/generate/{dataset}/{{model}}.merge.log",
            localrule: True
            conda:
                "../envs/report.yaml"
            resources:
                mem_mb=2000,
                runtime=20,
            params:
                languages=PLAN.languages(dataset),
            script:
                "../workflow_scripts/merge_generation_shards.py"
