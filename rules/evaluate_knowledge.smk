# Knowledge consistency (paper 001) on MAKQA: xSC (sentence embeddings), xAC and xTC
# (chrF + Spearman across language pairs) and their harmonic mean xC, per model, then
# the paper's Tables 3, 4 and 6 and the language-pair heatmaps over all models.

if "makqa" in PLAN.generation_datasets():

    rule knowledge_scores:
        input:
            prompts=prompt_files("makqa"),
            responses=response_patterns("makqa"),
            embedder=get_embedder_weights,
        output:
            scores=knowledge_evaluation("{model}", "scores"),
            pairs=knowledge_evaluation("{model}", "pairs"),
            per_item=knowledge_evaluation("{model}", "items"),
        log:
            "logs/evaluate/makqa/{model}/knowledge.log",
        benchmark:
            f"{RESULTS}/benchmarks/evaluate/makqa/{{model}}/knowledge.tsv"
        conda:
            "../envs/evaluate.yaml"
        threads: 2
        resources:
            mem_mb=8000,
            runtime=120,
        params:
            embedder=get_embedder_path,
            ranking=config["evaluators"]["knowledge"]["timeliness_ranking"],
            oracle=config["evaluators"]["knowledge"]["oracle"],
            oracle_answers=config["evaluators"]["knowledge"]["oracle_answers"],
        script:
            "../workflow_scripts/knowledge_scores.py"

    rule knowledge_report:
        input:
            scores=[knowledge_evaluation(m, "scores") for m in PLAN.generators()],
            pairs=[knowledge_evaluation(m, "pairs") for m in PLAN.generators()],
        output:
            report=knowledge_report_outputs(),
        log:
            "logs/report/makqa.log",
        conda:
            "../envs/report.yaml"
        resources:
            mem_mb=4000,
            runtime=30,
        params:
            table_formats=config["output"]["table_formats"],
            figure_formats=config["output"]["figure_formats"],
        script:
            "../workflow_scripts/knowledge_report.py"
