# Judged accuracy (Holtermann et al. 2024): an LLM judges every answer against the item's English
# question, yes or no. One job per (data set, model); the judge's backend entry decides
# the job's env, GPUs and memory. With `evaluators.judge.shards: N` (xlcons.plan.shards), N
# jobs per (data set, model), one per shard of the items (`{shard}`: their files are
# PLAN.job_file's), and a local job that merges their tables into the one job's output.

JUDGE = PLAN.llm_job("evaluators.judge.llm", RESOURCES, ENVS)

if PLAN.evaluator_datasets("judge"):

    rule judge:
        input:
            responses=get_responses,
            english=get_english_questions,
            weights=JUDGE.weights,
        output:
            judgments=PLAN.job_file(evaluation("judgments"), "judge"),
            usage=PLAN.job_file(
                PLAN.usage_file("judge", "{dataset}", "{model}"), "judge"
            ),
        log:
            PLAN.job_file("logs/evaluate/{dataset}/{model}/judge.log", "judge"),
        benchmark:
            PLAN.job_file(
                f"{RESULTS}/benchmarks/evaluate/{{dataset}}/{{model}}/judge.tsv",
                "judge",
            )
        wildcard_constraints:
            dataset=scored_datasets("judge"),
        conda:
            JUDGE.env
        threads: 2
        resources:
            gpu=JUDGE.gpus,
            mem_mb=JUDGE.mem_mb,
            runtime=720,
        params:
            judge=JUDGE.spec,
            cache=PLAN.job_file(job_cache("judge"), "judge"),
            max_failed_share=PLAN.max_failed_share(),
            prompt=PLAN.evaluator_option("judge", "prompt"),
        script:
            "../workflow_scripts/evaluate.py"


if PLAN.evaluator_datasets("judge") and PLAN.sharded("judge"):

    rule judge_merge:
        input:
            responses=get_responses,
            shards=PLAN.shard_files(evaluation("judgments"), "judge"),
        output:
            judgments=evaluation("judgments"),
        log:
            "logs/evaluate/{dataset}/{model}/judge.merge.log",
        wildcard_constraints:
            dataset=scored_datasets("judge"),
        localrule: True
        conda:
            "../envs/report.yaml"
        resources:
            mem_mb=2000,
            runtime=20,
        script:
            "../workflow_scripts/evaluate.py"
