# Aggregation over every evaluator (issue: results): per-item scores of all models in,
# the long results table with bootstrap intervals, paper 000's group averages and the
# configured model comparisons out. A local rule: it reads per-item files only, so adding
# a model recomputes these tables and never an evaluator.


localrules:
    results,


rule results:
    input:
        unpack(get_results_inputs),
    output:
        scores=f"{RESULTS}/tables/item_scores.parquet",
        results=f"{RESULTS}/tables/results.parquet",
        results_csv=reported([f"{RESULTS}/tables/results.csv"], "Results"),
        groups=directory(f"{RESULTS}/tables/groups"),
        comparisons=f"{RESULTS}/tables/comparisons.parquet",
        comparisons_csv=reported([f"{RESULTS}/tables/comparisons.csv"], "Results"),
    log:
        "logs/report/results.log",
    conda:
        "../envs/report.yaml"
    resources:
        mem_mb=8000,
        runtime=60,
    params:
        n_resamples=config["output"]["bootstrap_resamples"],
        seed=config["output"]["seed"],
        training_languages=get_training_languages,
        table_formats=config["output"]["table_formats"],
        comparisons=config["output"]["comparisons"],
    script:
        "../workflow_scripts/results.py"


# Paper 000's tables and figures from the results table: averaged consistency by script,
# family and In/Out (beside the published averages), the self-consistency table of the
# translationese check, per-language values with intervals, the EPITOME classifiers
# beside the paper's, and model x language heatmaps grouped by script.
if paper_000_datasets():

    localrules:
        translate_then_evaluate_report,

    rule translate_then_evaluate_report:
        input:
            results=f"{RESULTS}/tables/results.parquet",
            classifiers=get_classifier_evaluations,
        output:
            report=reported(
                translate_then_evaluate_outputs(), "Translate then Evaluate"
            ),
        log:
            "logs/report/translate_then_evaluate.log",
        conda:
            "../envs/report.yaml"
        resources:
            mem_mb=4000,
            runtime=30,
        params:
            out_dir=get_output_folder,
            models=PLAN.generators(),
            training_languages=get_training_languages,
            translationese=bool(PLAN.round_trip_languages()),
            table_formats=config["output"]["table_formats"],
            figure_formats=config["output"]["figure_formats"],
        script:
            "../workflow_scripts/translate_then_evaluate_report.py"
