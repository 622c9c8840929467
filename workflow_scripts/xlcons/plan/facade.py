"""`Plan`: one object for the Snakefile, composing the parts of the plan, each with one concern.

Each part is an attribute (`plan.layout`, `plan.translation`, ...) and the parts' methods the
rules call are the plan's own too (`plan.prompt_file` is `plan.layout.prompt_file`): the
table `FORWARDED` lists which part answers which name, so the rules and tests keep one
vocabulary whichever part a decision lives in.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from xlcons.dataset_resolver import DatasetResolver
from xlcons.languages import LanguageRegistry
from xlcons.plan.data import DataPlan
from xlcons.plan.evaluation import EvaluationPlan
from xlcons.plan.explorer import ExplorerPlan
from xlcons.plan.layout import Layout
from xlcons.plan.llm_job import LLMJob
from xlcons.plan.models import ModelSources
from xlcons.plan.options import RunOptions
from xlcons.plan.quality import QualityPlan
from xlcons.plan.scoring import EvaluatorPlan
from xlcons.plan.shards import ShardPlan
from xlcons.plan.targets import Targets
from xlcons.plan.translation import TranslationPlan
from xlcons.plan.usage import UsagePlan

# Part -> the names of its methods the plan answers too.
FORWARDED: dict[str, tuple[str, ...]] = {
    "data": (
        "enabled_datasets",
        "info",
        "languages",
        "generation_datasets",
        "translation_datasets",
        "prompt_translated_datasets",
        "native_datasets",
        "source_languages",
        "prompt_translation_languages",
        "loader",
        "loader_options",
        "item_selection",
        "dataset_location",
        "dataset_folder",
        "notes",
        "fetched_dataset_pattern",
        "dataset_fetch_params",
        "max_new_tokens",
        "system_prompt",
    ),
    "models": (
        "generators",
        "tokenizer_models",
        "hub_models",
        "hub_model_pattern",
        "model_location",
        "local_path",
        "model_inputs",
        "missing_api_keys",
        "llm_spec",
        "content",
    ),
    "layout": (
        "prompt_file",
        "prompt_files",
        "prompt_table",
        "prompt_review_file",
        "english_question_files",
        "response_file",
        "response_files",
        "response_table",
        "translation_file",
        "translation_files",
        "qe_files",
        "round_trip_file",
        "evaluation_file",
        "evaluator_report_dir",
        "cache_file",
        "usage_file",
    ),
    "scoring": (
        "evaluators",
        "rule_files",
        "evaluator_datasets",
        "evaluator_section",
        "evaluator_option",
        "evaluator_model_keys",
        "read_translated_datasets",
        "planner",
    ),
    "translation": (
        "translators",
        "primary_translator",
        "extra_translators",
        "via",
        "vias",
        "translator_of",
        "translator_vias",
        "translator_section",
        "translator_key",
        "is_llm_translator",
        "translator_gpus",
        "translator_fields",
        "ctranslate2_dir",
        "ctranslate2_conversions",
        "translator_weights",
        "detects_response_language",
        "translation_lid_inputs",
        "translation_lid_path",
        "translation_lid_content",
    ),
    "quality": (
        "qe_section",
        "qe_datasets",
        "qe_jobs",
        "all_qe_files",
        "qe_fields",
        "qe_gpus",
        "qe_model_name",
        "qe_env",
        "qe_threshold",
        "lid_label_scheme",
        "round_trip_languages",
        "round_trip_datasets",
        "round_trip_files",
    ),
    "evaluation": (
        "evaluated_models",
        "evaluator_vias",
        "evaluation_jobs",
        "evaluation_files",
        "evaluation_targets",
        "evaluator_reports",
        "pair_figure_files",
        "file_translators",
        "results_inputs",
        "measurability_jobs",
        "measurability_file",
        "measurability_files",
        "faithful_prompts",
        "reference_scored",
    ),
    "usage": ("usage_jobs", "usage_files", "pricing"),
    "sharding": (
        "shards_key",
        "shards",
        "sharded",
        "shard_indices",
        "shard_file",
        "job_file",
        "unsharded_files",
        "shard_files",
    ),
    "explorer": ("explorer_enabled", "explorer_in_report", "explorer_dir", "explorer_inputs"),
    "targets": (
        "missing_models",
        "required_model_keys",
        "random_weight_models",
        "fetched_sources",
        "fetch_targets",
        "final_targets",
    ),
    "options": (
        "table_formats",
        "figure_formats",
        "bootstrap_resamples",
        "seed",
        "comparisons",
        "training_languages",
        "max_failed_share",
        "refusals",
        "limits",
    ),
}


class Plan:
    """What a validated config asks the workflow to do, from the three registries (data sets,
    evaluators, generation backends): its parts, composed."""

    def __init__(
        self,
        config: Mapping[str, Any],
        registry: LanguageRegistry | None = None,
        datasets: DatasetResolver | None = None,
    ):
        self.config = config
        self.registry = registry or (datasets.registry if datasets else LanguageRegistry.load())
        self.datasets = datasets or DatasetResolver(config, self.registry)
        self.results: str = config["output"]["results_dir"]
        self.data = DataPlan(config, self.datasets)
        self.models = ModelSources(config)
        self.layout = Layout(self.results, self.data)
        self.scoring = EvaluatorPlan(config, self.datasets, self.data)
        self.translation = TranslationPlan(config, self.models, self.scoring)
        self.quality = QualityPlan(
            config, self.registry, self.models, self.data, self.layout, self.translation, self.scoring
        )
        self.evaluation = EvaluationPlan(self.models, self.layout, self.scoring, self.translation, self.quality)
        self.explorer = ExplorerPlan(
            config, self.data, self.layout, self.scoring, self.evaluation, self.quality, self.translation
        )
        self.targets = Targets(
            self.models, self.data, self.layout, self.scoring, self.translation, self.quality, self.evaluation
        )
        self.options = RunOptions(config)
        self.sharding = ShardPlan(config, self.scoring)
        self.usage = UsagePlan(config, self.targets, self.sharding)

    @property
    def sources(self) -> dict[str, Mapping[str, Any]]:
        """Every model source of the config, by its config key."""
        return self.models.sources

    @property
    def names(self) -> dict[str, str]:
        """The folder name of every model with files, by its config key."""
        return self.models.names

    def llm_job(self, key: str, resources: str, envs_dir: Path | str, dataset: str | None = None) -> LLMJob:
        """The job functions of an LLM role; `dataset` for a generator, whose system prompt the
        data set gives when the model has none of its own."""
        return LLMJob(
            self.models, key, resources, envs_dir, dataset, self.data.system_prompt(dataset) if dataset else None
        )

    def legacy_caches(self) -> list[tuple[str, str]]:
        """(old, new) paths of the item caches that evaluators' jobs kept elsewhere before, as
        each evaluator's planner lists them: moved once, so no LLM call is made again."""
        return self.scoring.legacy_caches(self.results, self.models.generators(), self.layout.cache_file)


def _forward(part: str, name: str) -> property:
    def answer(plan: Plan) -> Any:
        return getattr(getattr(plan, part), name)

    return property(answer, doc=f"`plan.{part}.{name}`")


for _part, _names in FORWARDED.items():
    for _name in _names:
        setattr(Plan, _name, _forward(_part, _name))
