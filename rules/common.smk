# Config validation and the thin input functions the rules share. Every decision (which
# evaluator scores which data set, where a file goes, what a job of an LLM needs) is made
# by xlcons.plan from the registries; the functions here only hand the wildcards over.

import sys
from pathlib import Path

from snakemake.exceptions import WorkflowError
from snakemake.logging import logger

sys.path.insert(0, str(Path(workflow.basedir) / "workflow_scripts"))

from xlcons.config import QE_MODEL, ConfigError, resolve_config
from xlcons.config_files import first_problem
from xlcons.evaluators.registry import LANGUAGE_ID_MODEL_KEY
from xlcons.plan import Plan, alternation, via_alternation
from xlcons.progress import status_file_for_log
from xlcons.run_lock import held_lock_reasons, record_holder, release_stale_lock
from xlcons.run_progress import record_planned

# Snakemake keeps the last of a key given twice; the files it read are checked here, so that
# a run without the workflow profile (which checks them earlier) refuses them too.
if problem := first_problem(workflow.configfiles):
    raise WorkflowError(problem)

try:
    DATASETS = resolve_config(config, base_dir=Path.cwd())
except ConfigError as error:
    raise WorkflowError(str(error)) from None

PLAN = Plan(config, datasets=DATASETS)
if PLAN.missing_models():
    raise WorkflowError(PLAN.missing_models())
RESOURCES = "resources"
RESULTS = PLAN.results
ENVS = Path(workflow.basedir) / "envs"
for message in PLAN.notes():
    logger.warning(f"xlcons: {message}")
for old, new in PLAN.legacy_caches():
    if Path(old).is_file() and not Path(new).exists():
        Path(new).parent.mkdir(parents=True, exist_ok=True)
        Path(old).rename(new)
        logger.info(
            f"xlcons: moved the item cache {old} to {new} (its earlier place, without the data set)"
        )

# The run's budget (docs/usage.md#the-budget-guard): with `limits` set, the estimate's bound
# (xlcons.estimate) is checked before any job is scheduled, dry runs included; never in a job
# that Snakemake starts on a cluster node (it parses this file again), and never without limits
# (the estimate loads tokenizers: seconds).
if PLAN.limits() and not (workflow.remote_exec or workflow.subprocess_exec):
    from xlcons.estimate.check import limits_problem

    problem, budget_notes = limits_problem(PLAN, RESOURCES)
    for message in budget_notes:
        logger.warning(f"xlcons: {message}")
    if problem:
        raise WorkflowError(problem)

# A lock left by a local run that was killed (kill -9) is released when its process and its
# jobs provably no longer run (xlcons.run_lock); any other lock stops the run, as Snakemake's
# message and docs/cluster.md#resuming say; where the record says who keeps it (the run still
# going, or processes left in a killed run's process group), that is said first. Not in a job
# that Snakemake starts (it parses this file again while its own run holds the lock).
for message in release_stale_lock():
    logger.warning(f"xlcons: {message}")
if not (workflow.remote_exec or workflow.subprocess_exec):
    for message in held_lock_reasons():
        logger.warning(f"xlcons: {message}")


onstart:
    # Not in a dry run (Snakemake calls no hook then), and not in a cluster job (--no-hooks):
    # on the machine that submits, before any job is scheduled, every API model that a job to
    # run calls has its key's environment variable set (docs/generation.md#api-keys).
    # Each job's params are worked out afresh, not kept: a job's own are read when it runs.
    if problems := PLAN.missing_api_keys(
        job.rule.expand_params(job.wildcards_dict, job.input, job.output, job)[0]
        for job in workflow.dag.needrun_jobs()
    ):
        raise WorkflowError(
            "xlcons: " + "\n  ".join(["missing API keys:", *problems])
        )
    # What `xlcons progress` counts the run's progress over: the model jobs planned (those with a
    # usage ledger), each by the status file it will keep beside its log and its ledger
    # (xlcons.run_progress.record_planned).
    ledgers = {str(Path(path)) for path in PLAN.usage.usage_files()}
    record_planned(
        [
            (status_file_for_log(job.log[0]), job.output.usage)
            for job in workflow.dag.needrun_jobs()
            if "usage" in job.output.keys()
            and job.log
            and str(Path(job.output.usage)) in ledgers
        ]
    )
    # The holder of the lock this run took (a local run's: Snakemake keeps which files it
    # wrote in `persistence._lockfile`), for the next run to tell a killed run's lock.
    if workflow.local_exec:
        record_holder(getattr(workflow.persistence, "_lockfile", {}).values())


# Config keys of the models the stages share (the language-ID model's, from its registry
# entry; translator.qe.model: QE_MODEL).
LANGUAGE_ID = LANGUAGE_ID_MODEL_KEY
# Report outputs the rule files add to the run (paper tables, figures).
REPORT_TARGETS = []


wildcard_constraints:
    dataset=alternation(PLAN.generation_datasets()),
    model=alternation(PLAN.generators()),
    lang=alternation(PLAN.registry.codes),
    via=via_alternation(PLAN.vias()),
    shard=r"\d+",


def evaluation(output):
    """An evaluator output of one (data set, model) job, wildcards left open."""
    return PLAN.evaluation_file("{dataset}", "{model}", output)


def translated_evaluation(output):
    """An output of an evaluator that reads translations: one per translator (`{via}`)."""
    return PLAN.evaluation_file("{dataset}", "{model}", output, "{via}")


def scored_datasets(evaluator):
    """A wildcard constraint: the data sets an evaluator scores."""
    return alternation(PLAN.evaluator_datasets(evaluator))


# -- fetch ------------------------------------------------------------------------------


def get_model_source(wildcards):
    """The Hub coordinates of one model to fetch."""
    return PLAN.hub_models()[wildcards.name]


def get_dataset_fetch_params(wildcards):
    """One released data source to fetch, and the mirror the config names for it (if any)."""
    return PLAN.dataset_fetch_params(wildcards.source)


# -- prompts ----------------------------------------------------------------------------


def get_dataset_files(wildcards):
    """A data set's prompt file or local folder as given, or the manifest its fetch job writes."""
    return PLAN.dataset_location(wildcards.dataset, RESOURCES)


def get_dataset_folder(wildcards):
    return PLAN.dataset_folder(wildcards.dataset, RESOURCES)


def get_dataset_loader(wildcards):
    return PLAN.loader(wildcards.dataset)


def get_dataset_items(wildcards):
    return PLAN.item_selection(wildcards.dataset)


def get_dataset_options(wildcards):
    """The loader's own options (MAKQA: domains, few-shot, variants, seed; a user set: its file's layout)."""
    return PLAN.loader_options(wildcards.dataset)


# -- one (data set, model): what an evaluator job reads -----------------------------------


def get_language_prompts(wildcards):
    return PLAN.prompt_files(wildcards.dataset)


def get_prompts(wildcards):
    """Every language's prompts, as one table."""
    return [PLAN.prompt_table(wildcards.dataset)]


def get_english_prompts(wildcards):
    return PLAN.prompt_file(wildcards.dataset, "en")


def get_english_questions(wildcards):
    return PLAN.english_question_files(wildcards.dataset)


def get_responses(wildcards):
    """Every language's answers of the model, as one table."""
    return [PLAN.response_table(wildcards.dataset, wildcards.model)]


def get_english_response(wildcards):
    return PLAN.response_file(wildcards.dataset, wildcards.model, "en")


def get_translations_into_english(wildcards):
    """The translated answers of every language but English."""
    return PLAN.translation_files(
        wildcards.dataset, wildcards.model, english=False, via=wildcards.via
    )


def get_round_trips(wildcards):
    return PLAN.round_trip_files(wildcards.dataset, wildcards.model)


def job_cache(stage):
    """The item cache of a (data set, model) job, wildcards left open; not an output, so it
    survives reruns and a killed job resumes from it."""
    return PLAN.cache_file(stage, "{dataset}", "{model}")


def get_language_id_path(wildcards):
    return PLAN.local_path(LANGUAGE_ID, RESOURCES)


def job_translator(wildcards):
    """The translator of a job: its `{via}` wildcard's (the primary's where a rule has none)."""
    return PLAN.translator_of(wildcards.get("via", ""))


def get_translator_dir(wildcards):
    return PLAN.local_path(PLAN.translator_key(job_translator(wildcards)), RESOURCES)


# -- translation ------------------------------------------------------------------------


def get_translator_weights(wildcards):
    """The checkpoint's marker or path; for CTranslate2, the converted model instead."""
    return PLAN.translator_weights(RESOURCES, job_translator(wildcards))


def get_translator_gpus(wildcards):
    return PLAN.translator_gpus(job_translator(wildcards))


def get_translator_fields(wildcards):
    return PLAN.translator_fields(job_translator(wildcards), RESOURCES)


def get_ctranslate2_dir(wildcards):
    return PLAN.ctranslate2_dir(RESOURCES, job_translator(wildcards))


def translator_cache(stage, dataset="{dataset}"):
    """A translator's item cache of a (data set, model) job: under its own folder, so two
    translators' jobs never share (and wait on) one cache; a shard job's (`{shard}`) beside it.
    """
    return lambda wildcards: PLAN.job_file(
        PLAN.cache_file(
            stage, wildcards.get("dataset", dataset), wildcards.model, wildcards.via
        ),
        stage,
        wildcards.get("shard"),
    )


def get_translation_lid(wildcards):
    """The language-ID model, when it picks the languages the answers are translated from."""
    return PLAN.translation_lid_inputs(RESOURCES)


def get_translation_lid_path(wildcards):
    return PLAN.translation_lid_path(RESOURCES)


def get_translation_lid_content(wildcards):
    """The digest of a local LID model's files, when it picks the source languages."""
    return PLAN.translation_lid_content()


def get_translator_mem_mb(wildcards, attempt):
    """Translation jobs hold the translator (the 54B MoE needs far more); grows with the retry."""
    return 16000 * attempt


def converted_translator(wildcards):
    """The translator whose checkpoint a CTranslate2 folder (`{converted}`) is converted from."""
    return PLAN.ctranslate2_conversions(RESOURCES)[
        f"{RESOURCES}/ctranslate2/{wildcards.converted}"
    ]


def get_conversion_checkpoint(wildcards):
    return PLAN.model_location(
        PLAN.translator_key(converted_translator(wildcards)), RESOURCES
    )


def get_conversion_checkpoint_dir(wildcards):
    return PLAN.local_path(
        PLAN.translator_key(converted_translator(wildcards)), RESOURCES
    )


def get_ctranslate2_quantization(wildcards):
    from xlcons.translation.ctranslate2_conversion import quantization_for

    section = PLAN.translator_section(converted_translator(wildcards))
    return quantization_for(section["compute_type"])


def get_conversion_content(wildcards):
    """A local checkpoint's digest: replaced or retrained in place, it is converted again."""
    return PLAN.content(PLAN.translator_key(converted_translator(wildcards)))


def get_qe_model_path(wildcards):
    return PLAN.local_path(QE_MODEL, RESOURCES)


# -- targets ----------------------------------------------------------------------------


def get_fetch_targets():
    """The markers and manifests of every model and data set the enabled stages need."""
    return PLAN.fetch_targets(RESOURCES)


def get_final_targets():
    """Everything the enabled stages produce; rule files add their reports to REPORT_TARGETS."""
    return PLAN.final_targets(RESOURCES) + REPORT_TARGETS


def get_output_folder(wildcards, output):
    """The folder of a report rule's first output (where its report writes every file)."""
    return str(Path(output[0]).parent)


def report_outputs(module, folder, **options):
    """The files a report module's `report_outputs` lists for this run (tables in the configured formats)."""
    from importlib import import_module

    outputs = import_module(module).report_outputs(
        f"{RESULTS}/tables/{folder}",
        PLAN.generators(),
        PLAN.table_formats(),
        PLAN.figure_formats(),
        **options,
    )
    return [str(path) for path in outputs]


def reported(paths, category, captions, subcategory=None):
    """The CSV tables and PNG figures among `paths` marked for `snakemake --report`, with their
    captions (rules/captions/<caption>.rst, by file-name prefix)."""
    marked = []
    for path in paths:
        name = Path(path).name
        caption = next(
            (c for prefix, c in captions.items() if name.startswith(prefix)), None
        )
        if caption and name.endswith((".csv", ".png")):
            path = report(
                path,
                caption=f"captions/{caption}.rst",
                category=category,
                subcategory=subcategory,
            )
        marked.append(path)
    return marked


def evaluator_report_files(evaluator, dataset):
    """The figure and table files of one evaluator report (rule evaluator_report)."""
    from xlcons.reports.evaluator_figures import report_outputs

    folder = PLAN.evaluator_report_dir(evaluator, dataset)
    outputs = report_outputs(folder, PLAN.table_formats(), PLAN.figure_formats())
    return [str(path) for path in outputs]


# -- results and reports ----------------------------------------------------------------


def get_results_inputs(wildcards):
    return PLAN.results_inputs()


def get_training_languages(wildcards):
    return PLAN.training_languages()


def get_pair_figure_files(wildcards):
    """An evaluator report's per-pair files, for an evaluator scored over language pairs."""
    return PLAN.pair_figure_files(wildcards.evaluator, wildcards.dataset)


def get_figure_metrics(wildcards):
    """The metrics an evaluator report draws (its registry entry's; the captions name them)."""
    from xlcons.evaluators.registry import EVALUATORS

    return list(EVALUATORS[wildcards.evaluator].figure_metrics)


def get_evaluated_models(wildcards):
    """The models an evaluator scores, in the config's order."""
    return PLAN.evaluated_models(wildcards.evaluator)


def paper_files(evaluator, output, dataset):
    """One evaluator output of every model for one data set (the paper reports read them)."""
    models = PLAN.evaluated_models(evaluator)
    return [PLAN.evaluation_file(dataset, model, output) for model in models]


def get_explorer_inputs(wildcards):
    return PLAN.explorer_inputs()
