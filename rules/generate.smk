# Generation: one job per (data set, model) loads the model once and answers every
# language; one response table per language. A per-item cache beside the results lets a
# killed job resume and a rerun generate only what is new. The model's backend entry
# (xlcons.generation.registry) decides the job's env, GPUs and memory. With
# `generation.shards: N` (xlcons.plan.shards) the job is N jobs, one per shard of the items
# (`{shard}`), each with the same env, GPUs and memory, and a local job merges their tables
# into the very outputs of one job.

GENERATE_SHARDS = PLAN.shards("generate")

for dataset in PLAN.generation_datasets():
    generator = PLAN.llm_job("models.{model}", RESOURCES, ENVS, dataset)

    if GENERATE_SHARDS == 1:

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

    else:

        rule:
            name:
                f"generate_{dataset}"
            input:
                prompts=[PLAN.prompt_table(dataset)],
                weights=generator.weights,
            output:
                table=PLAN.shard_file(
                    PLAN.response_table(dataset, "{model}"), "generate"
                ),
                usage=PLAN.shard_file(
                    PLAN.usage_file("generate", dataset, "{model}"), "generate"
                ),
            log:
                PLAN.shard_file(f"logs/generate/{dataset}/{{model}}.log", "generate"),
            benchmark:
                PLAN.shard_file(
                    f"{RESULTS}/benchmarks/generate/{dataset}/{{model}}.tsv",
                    "generate",
                )
            wildcard_constraints:
                shard=r"\d+",
            conda:
                generator.env
            threads: 2
            resources:
                gpu=generator.gpus,
                mem_mb=generator.mem_mb,
                runtime=720,
            params:
                model=generator.spec,
                max_new_tokens=PLAN.max_new_tokens(dataset),
                cache=PLAN.shard_file(
                    PLAN.cache_file("generate", dataset, "{model}"), "generate"
                ),
                max_failed_share=PLAN.max_failed_share(),
                shards=GENERATE_SHARDS,
            script:
                "../workflow_scripts/generate.py"

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
