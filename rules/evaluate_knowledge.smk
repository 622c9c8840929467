# Knowledge consistency (paper 001): xSC (sentence embeddings), xAC and xTC (chrF +
# Spearman across language pairs) and their harmonic mean xC, per (data set, model);
# for MAKQA then the paper's Tables 3, 4 and 6 and the language-pair heatmaps over all
# models. Other data sets with parallel items (MultiQ) get xSC.

if PLAN.knowledge_datasets():

    rule knowledge_scores:
        input:
            prompts=get_knowledge_prompts,
            responses=get_knowledge_responses,
            embedder=get_embedder_weights,
        output:
            scores=knowledge_evaluation("{model}", "scores", "{dataset}"),
            pairs=knowledge_evaluation("{model}", "pairs", "{dataset}"),
            per_item=knowledge_evaluation("{model}", "items", "{dataset}"),
        log:
            "logs/evaluate/{dataset}/{model}/knowledge.log",
        benchmark:
            f"{RESULTS}/benchmarks/evaluate/{{dataset}}/{{model}}/knowledge.tsv"
        wildcard_constraints:
            dataset=alternation(PLAN.knowledge_datasets()),
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


if "makqa" in PLAN.knowledge_datasets():

    localrules:
        knowledge_report,

    rule knowledge_report:
        input:
            scores=[knowledge_evaluation(m, "scores") for m in PLAN.generators()],
            pairs=[knowledge_evaluation(m, "pairs") for m in PLAN.generators()],
        output:
            report=reported(knowledge_report_outputs(), "MAKQA"),
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
