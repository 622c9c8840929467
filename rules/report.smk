# Aggregation over every evaluator: the per-item files of all evaluators, data sets and
# models in (by evaluator, as the registry lists them), the long results table with
# bootstrap intervals, Gupta et al. 2025's group averages, the configured model comparisons
# and the run's summary (results/summary.md, .csv) out. Then the papers' own tables and
# figures. Local rules: they read per-item files only, so adding a model recomputes these
# tables and never an evaluator.


RESULTS_CAPTIONS = {
    "results": "results",
    "comparisons": "comparisons",
    "measurability": "measurability",
}
# The summary opens the HTML report: Snakemake lists categories alphabetically.
SUMMARY_CATEGORY = "At a glance"

if PLAN.evaluators():
    REPORT_TARGETS.append(f"{RESULTS}/tables/results.parquet")
    # The HTML report's first page (`--report`): the run's summary, with the line on
    # random-weight offline models and links to the summary files, the results table and the
    # explorer, written by the results job; before that job ran, a page that says so. The
    # workflow profile's report-metadata makes it the page the report opens on.
    REPORT_PAGE = f"{RESULTS}/summary.rst"
    FIRST_PAGE = (
        str(Path(REPORT_PAGE).resolve())
        if Path(REPORT_PAGE).is_file()
        else "captions/report_without_summary.rst"
    )

    report: FIRST_PAGE

    localrules:
        results,

    rule results:
        input:
            unpack(get_results_inputs),
        output:
            scores=f"{RESULTS}/tables/item_scores.parquet",
            results=f"{RESULTS}/tables/results.parquet",
            results_csv=reported(
                [f"{RESULTS}/tables/results.csv"], "Results", RESULTS_CAPTIONS
            ),
            groups=directory(f"{RESULTS}/tables/groups"),
            comparisons=f"{RESULTS}/tables/comparisons.parquet",
            comparisons_csv=reported(
                [f"{RESULTS}/tables/comparisons.csv"], "Results", RESULTS_CAPTIONS
            ),
            measurability_csv=reported(
                [f"{RESULTS}/tables/measurability.csv"], "Results", RESULTS_CAPTIONS
            )[0],
            summary=report(
                f"{RESULTS}/summary.md",
                caption="captions/summary.rst",
                category=SUMMARY_CATEGORY,
            ),
            summary_csv=report(
                f"{RESULTS}/summary.csv",
                caption="captions/summary.rst",
                category=SUMMARY_CATEGORY,
            ),
            report_page=REPORT_PAGE,
        log:
            "logs/report/results.log",
        conda:
            "../envs/report.yaml"
        resources:
            mem_mb=8000,
            runtime=60,
        params:
            n_resamples=PLAN.bootstrap_resamples(),
            seed=PLAN.seed(),
            training_languages=get_training_languages,
            table_formats=PLAN.table_formats(),
            comparisons=PLAN.comparisons(),
            qe_threshold=PLAN.qe_threshold(),
            translators=PLAN.file_translators(),
            random_weights=PLAN.random_weight_models(RESOURCES),
            explorer=(
                [PLAN.explorer_dir(), PLAN.explorer_in_report()]
                if PLAN.explorer_enabled()
                else None
            ),
            refusals=PLAN.refusals(),
        script:
            "../workflow_scripts/results.py"


# The usage ledger: every job that called a model (generation, translation, QE, the LLM
# evaluators) wrote what it asked of which model and what that took; one table of them all,
# with money where `pricing` gives the model's prices (xlcons.reports.usage).
if PLAN.usage_jobs():
    REPORT_TARGETS.append(f"{RESULTS}/tables/usage.csv")

    localrules:
        usage,

    rule usage:
        input:
            usage=PLAN.usage_files(),
        output:
            usage=report(
                f"{RESULTS}/tables/usage.csv",
                caption="captions/usage.rst",
                category="Usage",
            ),
        log:
            "logs/report/usage.log",
        conda:
            "../envs/report.yaml"
        resources:
            mem_mb=1000,
            runtime=10,
        params:
            jobs=PLAN.usage_jobs(),
            pricing=PLAN.pricing(),
        script:
            "../workflow_scripts/usage_table.py"


# Every evaluator's figure and table on every data set it scored, as its registry entry declares
# them (EvaluatorInfo.figure_metrics: models x languages heatmaps, or language-pair matrices per
# model), so that a user's set gets the figures of the paper sets: one job per (evaluator, data
# set), from the results table (and the per-pair files of an evaluator scored over pairs).
EVALUATOR_REPORTS = PLAN.evaluator_reports()
EVALUATOR_REPORT = evaluator_report_files("{evaluator}", "{dataset}")
EVALUATOR_CAPTIONS = {"heatmaps": "evaluator_figure", "table": "evaluator_table"}

if EVALUATOR_REPORTS and EVALUATOR_REPORT:
    REPORT_TARGETS.extend(
        path
        for evaluator, dataset in EVALUATOR_REPORTS
        for path in evaluator_report_files(evaluator, dataset)
    )

    localrules:
        evaluator_report,

    rule evaluator_report:
        input:
            results=f"{RESULTS}/tables/results.parquet",
            pairs=get_pair_figure_files,
        output:
            report=reported(
                EVALUATOR_REPORT,
                # no colon: Snakemake's report makes each category a reStructuredText link
                # target (`.. _<category>: ...`), which a colon would end early (a warning box
                # on every caption and on the first page)
                "Evaluator - {evaluator}",
                EVALUATOR_CAPTIONS,
                subcategory="{dataset}",
            ),
        log:
            "logs/report/evaluators/{evaluator}/{dataset}.log",
        wildcard_constraints:
            evaluator=alternation(name for name, _ in EVALUATOR_REPORTS),
            dataset=alternation(dataset for _, dataset in EVALUATOR_REPORTS),
        conda:
            "../envs/report.yaml"
        resources:
            mem_mb=4000,
            runtime=30,
        params:
            metrics=get_figure_metrics,
            models=get_evaluated_models,  # the figure's rows, in the config's order
            translator=PLAN.primary_translator(),
            table_formats=PLAN.table_formats(),
            figure_formats=PLAN.figure_formats(),
        script:
            "../workflow_scripts/evaluator_report.py"


# Translation noise: the sensitivity of every translation-read score to the quality
# estimate of its translation, and the mean-QE heatmap (translator.qe). With round trips
# of a data set that has QE too (translationese check), whether an item's QE predicts its
# round trip: the per-item scores in, one correlation per (data set, model, language).
# With several translators (`translators`), the spread of every translation-read score
# between them.
QE_CAPTIONS = {
    "sensitivity": "qe_sensitivity",
    "heatmap_qe": "qe_heatmap",
    "qe_round_trip": "qe_round_trip",
    "translator_spread": "translator_spread",
    "translator_difference_spread": "translator_difference_spread",
}
QE_ROUND_TRIP = bool(set(PLAN.qe_datasets()) & set(PLAN.round_trip_datasets()))
QE_REPORT = report_outputs(
    "xlcons.reports.translation_quality",
    "translation_quality",
    round_trip=QE_ROUND_TRIP,
    qe=bool(PLAN.qe_datasets()),
    spread=bool(PLAN.extra_translators()),
)

if PLAN.evaluators() and QE_REPORT:
    REPORT_TARGETS.extend(QE_REPORT)

    localrules:
        translation_quality_report,

    rule translation_quality_report:
        input:
            results=f"{RESULTS}/tables/results.parquet",
            item_scores=(
                f"{RESULTS}/tables/item_scores.parquet" if QE_ROUND_TRIP else []
            ),
        output:
            report=reported(QE_REPORT, "Translation quality", QE_CAPTIONS),
        log:
            "logs/report/translation_quality.log",
        conda:
            "../envs/report.yaml"
        resources:
            mem_mb=4000,
            runtime=30,
        params:
            table_formats=PLAN.table_formats(),
            figure_formats=PLAN.figure_formats(),
            qe=bool(PLAN.qe_datasets()),
            qe_threshold=PLAN.qe_threshold(),
            translators=PLAN.translators(),
            models=PLAN.generators(),  # the heatmap's rows, in the config's order
        script:
            "../workflow_scripts/translation_quality_report.py"


# Holtermann et al. 2024's tables and figures, when MultiQ's answers have fidelity and judgments.
MULTIQ_CAPTIONS = {
    "table3_accuracy": "multiq_accuracy",
    "table3_vs_published": "multiq_published",
    "table4_accuracy_by_fidelity": "multiq_by_fidelity",
    "fidelity_shares": "multiq_fidelity",
    "figure3_fidelity": "multiq_fidelity",
    "table5_accuracy_by_tokenization": "multiq_tokenization",
    "per_language": "multiq_per_language",
    "figure4_language_matrix": "multiq_language_matrix",
}
multiq_tokenized = "multiq" in PLAN.evaluator_datasets("tokenization") and bool(
    PLAN.tokenizer_models()
)
MULTIQ_REPORT = report_outputs(
    "xlcons.reports.multiq", "multiq", tokenization=multiq_tokenized
)

if "multiq" in PLAN.evaluator_datasets("language_id") and "multiq" in (
    PLAN.evaluator_datasets("judge")
):
    REPORT_TARGETS.extend(MULTIQ_REPORT)

    localrules:
        multiq_report,

    rule multiq_report:
        input:
            fidelity=paper_files("language_id", "fidelity", "multiq"),
            judgments=paper_files("judge", "judgments", "multiq"),
            tokenization=(
                paper_files("tokenization", "tokenization", "multiq")
                if multiq_tokenized
                else []
            ),
        output:
            report=reported(MULTIQ_REPORT, "MultiQ", MULTIQ_CAPTIONS),
        log:
            "logs/report/multiq.log",
        conda:
            "../envs/report.yaml"
        resources:
            mem_mb=4000,
            runtime=30,
        params:
            table_formats=PLAN.table_formats(),
            figure_formats=PLAN.figure_formats(),
        script:
            "../workflow_scripts/multiq_report.py"


# Xing et al. 2024's Tables 3, 4 and 6 and the language-pair heatmaps, when MAKQA is scored.
MAKQA_CAPTIONS = {
    "table3_xsc": "makqa_xsc",
    "table4_domains": "makqa_domains",
    "table6": "makqa_consistency",
    "figure2_pairs": "makqa_pairs",
}
MAKQA_REPORT = report_outputs("xlcons.reports.knowledge", "makqa")

if "makqa" in PLAN.evaluator_datasets("knowledge"):
    REPORT_TARGETS.extend(MAKQA_REPORT)

    localrules:
        knowledge_report,

    rule knowledge_report:
        input:
            scores=paper_files("knowledge", "knowledge_scores", "makqa"),
            pairs=paper_files("knowledge", "knowledge_pairs", "makqa"),
        output:
            report=reported(MAKQA_REPORT, "MAKQA", MAKQA_CAPTIONS),
        log:
            "logs/report/makqa.log",
        conda:
            "../envs/report.yaml"
        resources:
            mem_mb=4000,
            runtime=30,
        params:
            table_formats=PLAN.table_formats(),
            figure_formats=PLAN.figure_formats(),
        script:
            "../workflow_scripts/knowledge_report.py"


# Xing et al. 2024 §5: the models' translation ability (FLORES-200 chrF) by direction and language,
# and, when MAKQA is scored in the same run, against their xSC and xAC.
FLORES_CAPTIONS = {
    "translation_directions": "flores_directions",
    "translation_models": "flores_models",
    "translation_languages": "flores_languages",
    "translation_pairs": "flores_pairs",
    "translation_vs_consistency": "flores_correlations",
    "figure2_translation": "flores_heatmaps",
    "figure2_pairs": "flores_pairs_scatter",
    "figure3_translation": "flores_scatter",
}
flores_consistency = "makqa" in PLAN.evaluator_datasets("knowledge")
FLORES_REPORT = report_outputs(
    "xlcons.reports.translation_ability", "flores", consistency=flores_consistency
)

if "flores" in PLAN.evaluator_datasets("translation_ability"):
    REPORT_TARGETS.extend(FLORES_REPORT)

    localrules:
        translation_ability_report,

    rule translation_ability_report:
        input:
            directions=paper_files(
                "translation_ability", "translation_directions", "flores"
            ),
            pairs=(
                paper_files("knowledge", "knowledge_pairs", "makqa")
                if flores_consistency
                else []
            ),
        output:
            report=reported(FLORES_REPORT, "FLORES", FLORES_CAPTIONS),
        log:
            "logs/report/flores.log",
        conda:
            "../envs/report.yaml"
        resources:
            mem_mb=4000,
            runtime=30,
        params:
            table_formats=PLAN.table_formats(),
            figure_formats=PLAN.figure_formats(),
        script:
            "../workflow_scripts/translation_ability_report.py"


# Gupta et al. 2025's tables and figures from the results table: averaged consistency by script,
# family and In/Out (beside the published averages), the self-consistency table of the
# translationese check, per-language values with intervals, the EPITOME classifiers
# beside the paper's, and model x language heatmaps grouped by script.
TTE_CAPTIONS = {
    "averaged_consistency": "tte_averaged",
    "averaged_metrics": "tte_metrics",
    "per_language": "tte_per_language",
    "self_consistency": "tte_self_consistency",
    "classifiers": "tte_classifiers",
    "heatmap_information_F": "tte_heatmap_information",
    "heatmap_empathy_consistency": "tte_heatmap_empathy",
}
# (Gupta et al. 2025's sets: a user set scored by these evaluators is in the results table and its groups)
empathy_scored = "empathy" in PLAN.evaluator_datasets("empathy")
TTE_REPORT = report_outputs(
    "xlcons.reports.translate_then_evaluate",
    "translate_then_evaluate",
    translationese=bool(PLAN.round_trip_languages()),
    classifiers=empathy_scored,
)

if "information" in PLAN.evaluator_datasets("information") or empathy_scored:
    REPORT_TARGETS.extend(TTE_REPORT)

    localrules:
        translate_then_evaluate_report,

    rule translate_then_evaluate_report:
        input:
            results=f"{RESULTS}/tables/results.parquet",
            classifiers=(
                [
                    PLAN.planner("empathy").classifier_evaluation(RESULTS, mechanism)
                    for mechanism in PLAN.planner("empathy").mechanisms
                ]
                if empathy_scored
                else []
            ),
        output:
            report=reported(TTE_REPORT, "Translate then Evaluate", TTE_CAPTIONS),
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
            translator=PLAN.primary_translator(),
            table_formats=PLAN.table_formats(),
            figure_formats=PLAN.figure_formats(),
        script:
            "../workflow_scripts/translate_then_evaluate_report.py"
