# Judged accuracy (Holtermann et al. 2024): an LLM judges every answer against the item's English
# question, yes or no. One job per (data set, model); the judge's backend entry decides
# the job's env, GPUs and memory.

JUDGE = PLAN.llm_job("evaluators.judge.llm", RESOURCES, ENVS)

if PLAN.evaluator_datasets("judge"):

    rule judge:
        input:
            responses=get_responses,
            english=get_english_questions,
            weights=JUDGE.weights,
        output:
            judgments=evaluation("judgments"),
            usage=PLAN.usage_file("judge", "{dataset}", "{model}"),
        log:
            "logs/evaluate/{dataset}/{model}/judge.log",
        benchmark:
            f"{RESULTS}/benchmarks/evaluate/{{dataset}}/{{model}}/judge.tsv"
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
            cache=job_cache("judge"),
            max_failed_share=PLAN.max_failed_share(),
        script:
            "../workflow_scripts/evaluate.py"
