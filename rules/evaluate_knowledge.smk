# Knowledge consistency (Xing et al. 2024): xSC (sentence embeddings), xAC and xTC (chrF +
# Spearman across language pairs) and their harmonic mean xC, per (data set, model). Any
# set of parallel items gets xSC; one with gold answers also xAC, and xTC for a
# `timeliness` category. MAKQA's paper tables are written by rules/report.smk.

KNOWLEDGE_EMBEDDER = "evaluators.knowledge.embedder"


if PLAN.evaluator_datasets("knowledge"):

    rule knowledge_scores:
        input:
            prompts=get_prompts,
            responses=get_responses,
            embedder=PLAN.model_inputs(KNOWLEDGE_EMBEDDER, RESOURCES),
        output:
            scores=evaluation("knowledge_scores"),
            pairs=evaluation("knowledge_pairs"),
            per_item=evaluation("knowledge_items"),
        log:
            "logs/evaluate/{dataset}/{model}/knowledge.log",
        benchmark:
            f"{RESULTS}/benchmarks/evaluate/{{dataset}}/{{model}}/knowledge.tsv"
        wildcard_constraints:
            dataset=scored_datasets("knowledge"),
        conda:
            "../envs/evaluate.yaml"
        threads: 2
        resources:
            mem_mb=8000,
            runtime=120,
        params:
            embedder=lambda wildcards: PLAN.local_path(KNOWLEDGE_EMBEDDER, RESOURCES),
            embedder_content=PLAN.content(KNOWLEDGE_EMBEDDER),
            ranking=PLAN.evaluator_option("knowledge", "timeliness_ranking"),
            oracle=PLAN.evaluator_option("knowledge", "oracle"),
            oracle_answers=PLAN.evaluator_option("knowledge", "oracle_answers"),
        script:
            "../workflow_scripts/evaluate.py"
