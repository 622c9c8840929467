# Knowledge consistency (paper 001): xSC (sentence embeddings), xAC and xTC (chrF +
# Spearman across language pairs) and their harmonic mean xC, per (data set, model). Any
# set of parallel items gets xSC; one with gold answers also xAC, and xTC for a
# `timeliness` category. MAKQA's paper tables are written by rules/report.smk.


if PLAN.evaluator_datasets("knowledge"):

    rule knowledge_scores:
        input:
            prompts=get_prompts,
            responses=get_responses,
            embedder=PLAN.model_inputs("evaluators.knowledge.embedder", RESOURCES),
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
            embedder=get_embedder_path,
            embedder_content=PLAN.content("evaluators.knowledge.embedder"),
            ranking=config["evaluators"]["knowledge"]["timeliness_ranking"],
            oracle=config["evaluators"]["knowledge"]["oracle"],
            oracle_answers=config["evaluators"]["knowledge"]["oracle_answers"],
        script:
            "../workflow_scripts/evaluate.py"
