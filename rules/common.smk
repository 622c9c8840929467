# Config validation and every input function of the workflow.

import sys
from pathlib import Path

from snakemake.exceptions import WorkflowError
from snakemake.logging import logger

sys.path.insert(0, str(Path(workflow.basedir) / "workflow_scripts"))

from xlcons.config import ConfigError, validate_config
from xlcons.datasets import dataset_options
from xlcons.plan import Plan, alternation, generation_env, llm_gpus

try:
    validate_config(config, base_dir=Path.cwd())
except ConfigError as error:
    raise WorkflowError(str(error)) from None

PLAN = Plan(config)
RESOURCES = "resources"
RESULTS = PLAN.results
for warning in PLAN.unreachable_sources(RESOURCES):
    logger.warning(f"xlcons: {warning}")


wildcard_constraints:
    dataset=alternation(PLAN.generation_datasets()),
    model=alternation(PLAN.generators()),
    lang=alternation(PLAN.registry.codes),


# -- fetch ------------------------------------------------------------------------------


def get_model_source(wildcards):
    """The Hub coordinates of one model to fetch."""
    return PLAN.hub_models()[wildcards.name]


def get_dataset_fetch_params(wildcards):
    """Base URL (if any) of one released data set to fetch."""
    return PLAN.dataset_fetch_params(wildcards.source)


def get_fetch_targets():
    """The markers and manifests of every model and data set the enabled stages need."""
    return PLAN.fetch_targets(RESOURCES)


# -- prompts ----------------------------------------------------------------------------


def get_dataset_files(wildcards):
    """A data set's local folder as given, or the manifest its fetch job writes."""
    return PLAN.dataset_location(wildcards.dataset, RESOURCES)


def get_dataset_folder(wildcards):
    return PLAN.dataset_folder(wildcards.dataset, RESOURCES)


def get_dataset_items(wildcards):
    return PLAN.config["datasets"][wildcards.dataset]["items"]


def get_dataset_options(wildcards):
    """The data set's own loader options (MAKQA: domains, few-shot, variants, seed)."""
    return dataset_options(
        wildcards.dataset, PLAN.config["datasets"][wildcards.dataset]
    )


# -- generation -------------------------------------------------------------------------


def prompt_files(dataset):
    """The per-language prompt files of a data set, in configured language order."""
    return [PLAN.prompt_file(dataset, lang) for lang in PLAN.languages(dataset)]


def response_patterns(dataset):
    """The per-language response files of one generation job ({model} left open)."""
    return [
        PLAN.response_file(dataset, "{model}", lang) for lang in PLAN.languages(dataset)
    ]


def get_generator_weights(wildcards):
    return PLAN.generator_inputs(wildcards.model, RESOURCES)


def get_generator_spec(wildcards):
    return PLAN.generator_spec(wildcards.model, RESOURCES)


def env_file(name):
    """The path of envs/<name>.yaml, for a conda: directive chosen by a function."""
    return str(Path(workflow.basedir) / "envs" / f"{name}.yaml")


def get_generator_env(wildcards):
    return env_file(PLAN.generator_env(wildcards.model))


def get_generator_gpus(wildcards):
    return PLAN.generator_gpus(wildcards.model)


def llm_mem_mb(backend, attempt):
    """Memory of a job running an LLM on `backend`; it grows with the retry attempt, so
    --retries recovers from out-of-memory kills."""
    return {"vllm": 64000, "hf": 16000}.get(backend, 2000) * attempt


def get_generator_mem_mb(wildcards, attempt):
    return llm_mem_mb(PLAN.config["models"][wildcards.model]["backend"], attempt)


def generation_cache(dataset):
    """The job's own response cache ({model} left open); not an output, so it survives reruns."""
    return f"{RESULTS}/cache/generate/{dataset}/{{model}}.jsonl"


# -- targets ----------------------------------------------------------------------------


def get_final_targets():
    """Everything the enabled stages produce; each stage adds its outputs here."""
    return (
        get_fetch_targets()
        + PLAN.generation_targets()
        + multiq_targets()
        + knowledge_targets()
        + PLAN.translation_targets()
        + PLAN.round_trip_targets()
        + information_targets()
        + empathy_targets()
        + results_targets()
    )


# -- MultiQ evaluation ------------------------------------------------------------------

JUDGE = "evaluators.judge.llm"
LANGUAGE_ID = "evaluators.language_id.model"


def get_language_id_model(wildcards):
    """The LID model's marker or file, as an input."""
    return PLAN.model_location(LANGUAGE_ID, RESOURCES)


def get_language_id_path(wildcards):
    return PLAN.local_path(LANGUAGE_ID, RESOURCES)


def get_judge_weights(wildcards):
    return PLAN.llm_inputs(JUDGE, RESOURCES)


def get_judge_spec(wildcards):
    return PLAN.llm_spec(JUDGE, RESOURCES)


def get_judge_env(wildcards):
    return env_file(generation_env(config["evaluators"]["judge"]["llm"]["backend"]))


def get_judge_gpus(wildcards):
    return llm_gpus(config["evaluators"]["judge"]["llm"])


def get_tokenizer_path(wildcards):
    return PLAN.local_path(f"models.{wildcards.model}", RESOURCES)


def multiq_evaluation(model, name):
    return f"{RESULTS}/evaluations/multiq/{model}/{name}.parquet"


def multiq_report_outputs():
    """Every table and figure the MultiQ report writes for the configured models."""
    from xlcons.reports.multiq import report_outputs

    output = config["output"]
    return [
        str(path)
        for path in report_outputs(
            f"{RESULTS}/tables/multiq",
            PLAN.generators(),
            output["table_formats"],
            output["figure_formats"],
            tokenization=bool(PLAN.tokenizer_models()),
        )
    ]


def multiq_targets():
    return multiq_report_outputs() if "multiq" in PLAN.generation_datasets() else []


# -- knowledge consistency (MAKQA) ------------------------------------------------------

EMBEDDER = "evaluators.knowledge.embedder"


def get_embedder_weights(wildcards):
    return (
        [PLAN.model_location(EMBEDDER, RESOURCES)] if EMBEDDER in PLAN.sources else []
    )


def get_embedder_path(wildcards):
    return PLAN.local_path(EMBEDDER, RESOURCES) if EMBEDDER in PLAN.sources else None


def knowledge_evaluation(model, name, dataset="makqa"):
    return PLAN.knowledge_file(dataset, model, name)


def get_knowledge_prompts(wildcards):
    return prompt_files(wildcards.dataset)


def get_knowledge_responses(wildcards):
    return [
        PLAN.response_file(wildcards.dataset, wildcards.model, lang)
        for lang in PLAN.languages(wildcards.dataset)
    ]


def knowledge_report_outputs():
    from xlcons.reports.knowledge import report_outputs

    output = config["output"]
    return [
        str(path)
        for path in report_outputs(
            f"{RESULTS}/tables/makqa",
            PLAN.generators(),
            output["table_formats"],
            output["figure_formats"],
        )
    ]


def knowledge_targets():
    tables = knowledge_report_outputs() if "makqa" in PLAN.knowledge_datasets() else []
    return PLAN.knowledge_targets() + tables


# -- translation ------------------------------------------------------------------------

TRANSLATOR = "translator.model"


def get_translator_weights(wildcards):
    """The checkpoint's marker or path; for CTranslate2, the converted model instead."""
    converted = PLAN.ctranslate2_dir(RESOURCES)
    return converted or PLAN.model_location(TRANSLATOR, RESOURCES)


def get_translator_checkpoint(wildcards):
    return PLAN.model_location(TRANSLATOR, RESOURCES)


def get_translator_dir(wildcards):
    return PLAN.local_path(TRANSLATOR, RESOURCES)


def get_translation_lid(wildcards):
    if config["translator"]["detect_response_language"]:
        return PLAN.model_location(LANGUAGE_ID, RESOURCES)
    return []


def get_translation_lid_path(wildcards):
    if config["translator"]["detect_response_language"]:
        return PLAN.local_path(LANGUAGE_ID, RESOURCES)
    return None


def translation_patterns(dataset, kind):
    return [
        PLAN.translation_file(dataset, "{model}", lang, kind)
        for lang in PLAN.languages(dataset)
    ]


def get_translator_mem_mb(wildcards, attempt):
    """Translation jobs hold the translator (the 54B MoE needs far more); grows with the retry."""
    return 16000 * attempt


def translated_prompt_files(dataset):
    return [
        PLAN.prompt_file(dataset, lang)
        for lang in PLAN.prompt_translation_languages(dataset)
    ]


def prompt_review_files(dataset):
    return [
        PLAN.prompt_review_file(dataset, lang)
        for lang in PLAN.prompt_translation_languages(dataset)
    ]


def round_trip_patterns():
    """The round-trip files of one model ({model} left open), one per check language."""
    return [
        PLAN.round_trip_file("information", "{model}", lang)
        for lang in PLAN.round_trip_languages()
    ]


def get_ctranslate2_quantization(wildcards):
    from xlcons.translation.translators import quantization_for

    return quantization_for(config["translator"]["compute_type"])


# -- information consistency ------------------------------------------------------------

INFORMATION_LLM = "evaluators.information.llm"


def information_evaluation(model, name, check="information"):
    """An output of the information evaluator (`check`: information or translationese)."""
    return f"{RESULTS}/evaluations/information/{model}/{check}_{name}.parquet"


def non_english_translation_patterns(dataset):
    """The translated answers of one model ({model} left open), every language but English."""
    return [
        PLAN.translation_file(dataset, "{model}", lang)
        for lang in PLAN.languages(dataset)
        if lang != "en"
    ]


def get_information_llm_weights(wildcards):
    return PLAN.llm_inputs(INFORMATION_LLM, RESOURCES)


def get_information_llm_spec(wildcards):
    return PLAN.llm_spec(INFORMATION_LLM, RESOURCES)


def get_information_llm_env(wildcards):
    return env_file(
        generation_env(config["evaluators"]["information"]["llm"]["backend"])
    )


def get_information_llm_gpus(wildcards):
    return llm_gpus(config["evaluators"]["information"]["llm"])


def get_information_llm_mem_mb(wildcards, attempt):
    return llm_mem_mb(config["evaluators"]["information"]["llm"]["backend"], attempt)


def get_information_options(wildcards):
    section = config["evaluators"]["information"]
    return {
        key: section[key]
        for key in (
            "extraction_max_new_tokens",
            "verification_max_new_tokens",
            "max_facts_per_sentence",
        )
    }


def information_targets():
    if "information" not in PLAN.generation_datasets():
        return []
    models = PLAN.generators()
    targets = [information_evaluation(model, "scores") for model in models]
    if PLAN.round_trip_languages():
        targets += [
            information_evaluation(model, "scores", "translationese")
            for model in models
        ]
    return targets


# -- empathy consistency ----------------------------------------------------------------

EMPATHY_ENCODER = "evaluators.empathy.encoder"


def empathy_fine_tunes():
    return config["evaluators"]["empathy"]["classifier"] == "encoder"


def empathy_evaluation(model, name):
    """An output of the empathy evaluator of one model (`name`: items or scores)."""
    return f"{RESULTS}/evaluations/empathy/{model}/empathy_{name}.parquet"


def empathy_classifier_dir(mechanism):
    """Where a trained classifier goes: built by the workflow, so under resources/."""
    kind = config["evaluators"]["empathy"]["classifier"]
    return f"{RESOURCES}/classifiers/empathy-{kind}/{mechanism}"


def get_epitome_files(wildcards):
    return PLAN.dataset_location("empathy", RESOURCES)


def get_epitome_folder(wildcards):
    return PLAN.dataset_folder("empathy", RESOURCES)


def get_empathy_encoder_weights(wildcards):
    return (
        [PLAN.model_location(EMPATHY_ENCODER, RESOURCES)]
        if empathy_fine_tunes()
        else []
    )


def get_empathy_training_gpus(wildcards):
    return 1 if empathy_fine_tunes() else 0


def get_empathy_training_mem_mb(wildcards, attempt):
    return (32000 if empathy_fine_tunes() else 4000) * attempt


def get_empathy_training_runtime(wildcards, attempt):
    return (240 if empathy_fine_tunes() else 15) * attempt


def get_empathy_training_options(wildcards):
    """The classifier's options: the TF-IDF section, or the encoder's path, training settings
    and the mechanism's learning rate and epochs."""
    section = config["evaluators"]["empathy"]
    options = {"train_on": section["train_on"]}
    if not empathy_fine_tunes():
        return {**options, **section["tfidf"]}
    return {
        **options,
        **section["encoder_training"],
        **section["hyperparameters"][wildcards.mechanism],
        "model": PLAN.local_path(EMPATHY_ENCODER, RESOURCES),
        "seed": section["seed"],
    }


def empathy_targets():
    if "empathy" not in PLAN.generation_datasets():
        return []
    return [empathy_evaluation(model, "scores") for model in PLAN.generators()]


# -- results ----------------------------------------------------------------------------


def get_results_inputs(wildcards):
    """Every per-item evaluator output of every model, by kind (see xlcons.reports.aggregate)."""
    models = PLAN.generators()
    inputs = {}
    if "multiq" in PLAN.generation_datasets():
        inputs["fidelity"] = [multiq_evaluation(m, "fidelity") for m in models]
        inputs["judgments"] = [multiq_evaluation(m, "judgments") for m in models]
    if "information" in PLAN.generation_datasets():
        inputs["information"] = [information_evaluation(m, "items") for m in models]
        if PLAN.round_trip_languages():
            inputs["information"] += [
                information_evaluation(m, "items", "translationese") for m in models
            ]
    if "empathy" in PLAN.generation_datasets():
        inputs["empathy"] = [empathy_evaluation(m, "items") for m in models]
    if PLAN.knowledge_datasets():
        inputs["knowledge"] = PLAN.knowledge_targets()
    return inputs


def get_training_languages(wildcards):
    return {
        name: spec.get("training_languages") for name, spec in config["models"].items()
    }


def results_targets():
    if not PLAN.generation_datasets():
        return []
    return [f"{RESULTS}/tables/results.parquet"] + (
        translate_then_evaluate_outputs() if paper_000_datasets() else []
    )


def paper_000_datasets():
    return [d for d in ("information", "empathy") if d in PLAN.generation_datasets()]


def get_classifier_evaluations(wildcards):
    if "empathy" not in PLAN.generation_datasets():
        return []
    return [
        f"{RESULTS}/evaluations/empathy/classifiers/{m}.json"
        for m in ("ER", "IP", "EX")
    ]


def get_output_folder(wildcards, output):
    """The folder of a report rule's first output (where its report writes every file)."""
    return str(Path(output[0]).parent)


def translate_then_evaluate_outputs():
    from xlcons.reports.translate_then_evaluate import report_outputs

    output = config["output"]
    return [
        str(path)
        for path in report_outputs(
            f"{RESULTS}/tables/translate_then_evaluate",
            PLAN.generators(),
            output["table_formats"],
            output["figure_formats"],
            translationese=bool(PLAN.round_trip_languages()),
            classifiers="empathy" in PLAN.generation_datasets(),
        )
    ]


# -- the HTML report (snakemake --report) -------------------------------------------------

# Caption (rules/captions/<name>.rst) of each table and figure, by file-name prefix.
CAPTIONS = {
    "MultiQ": {
        "table3_accuracy": "multiq_accuracy",
        "table3_vs_published": "multiq_published",
        "table4_accuracy_by_fidelity": "multiq_by_fidelity",
        "fidelity_shares": "multiq_fidelity",
        "figure3_fidelity": "multiq_fidelity",
        "table5_accuracy_by_tokenization": "multiq_tokenization",
        "per_language": "multiq_per_language",
        "figure4_language_matrix": "multiq_language_matrix",
    },
    "MAKQA": {
        "table3_xsc": "makqa_xsc",
        "table4_domains": "makqa_domains",
        "table6": "makqa_consistency",
        "figure2_pairs": "makqa_pairs",
    },
    "Results": {"results": "results", "comparisons": "comparisons"},
    "Translate then Evaluate": {
        "averaged_consistency": "tte_averaged",
        "averaged_metrics": "tte_metrics",
        "per_language": "tte_per_language",
        "self_consistency": "tte_self_consistency",
        "classifiers": "tte_classifiers",
        "heatmap_information_F": "tte_heatmap_information",
        "heatmap_empathy_consistency": "tte_heatmap_empathy",
    },
}


def reported(paths, category):
    """The CSV tables and PNG figures among `paths` marked for `snakemake --report`, with captions."""
    marked = []
    for path in paths:
        name = Path(path).name
        caption = next(
            (c for prefix, c in CAPTIONS[category].items() if name.startswith(prefix)),
            None,
        )
        if caption and name.endswith((".csv", ".png")):
            path = report(path, caption=f"captions/{caption}.rst", category=category)
        marked.append(path)
    return marked
