"""The usage ledgers of a run: one file per job that calls a model (xlcons.usage), what each
belongs to, and the `pricing` section that turns tokens into money (xlcons.reports.usage)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from xlcons.evaluators.registry import TRANSLATIONS
from xlcons.plan.shards import ShardPlan
from xlcons.plan.targets import Targets

# The stages whose jobs call a model, beside the evaluators whose entries say so
# (EvaluatorInfo.calls_models): the `stage` of their usage files and of usage.csv's rows.
GENERATE = "generate"
TRANSLATE_PROMPTS = "translate_prompts"
TRANSLATE = "translate"
TRANSLATION_QE = "translation_qe"
ROUND_TRIP = "round_trip"


class UsagePlan:
    """Reads the run's jobs from the parts that plan them (`targets` holds them all)."""

    def __init__(self, config: Mapping[str, Any], targets: Targets, shards: ShardPlan):
        self.config, self.shards = config, shards
        self.models, self.data, self.layout = targets.models, targets.data, targets.layout
        self.evaluators, self.translation = targets.evaluators, targets.translation
        self.quality, self.evaluation = targets.quality, targets.evaluation

    def usage_jobs(self) -> list[dict[str, str]]:
        """Every model job of the run, in stage order: its usage file (`path`), `stage`, `dataset`,
        the `model` whose answers it works on (empty for the prompts' translation) and the
        `translator` behind the files it reads or writes (empty where none is). A sharded job
        is its N shard jobs, each with its own file (xlcons.plan.shards)."""
        generators = self.models.generators()
        translator_of = self.translation.translator_of
        jobs: list[tuple[str, str, str, str, str]] = []  # stage, dataset, model, via, translator
        for dataset in self.data.generation_datasets():
            jobs += [(GENERATE, dataset, model, "", "") for model in generators]
        for dataset in self.data.prompt_translated_datasets():
            jobs.append((TRANSLATE_PROMPTS, dataset, "", "", translator_of("")))
        for dataset in self.data.translation_datasets():
            jobs += [
                (TRANSLATE, dataset, model, via, translator_of(via))
                for model in generators
                for via in self.translation.translator_vias(dataset)
            ]
        jobs += [(TRANSLATION_QE, d, m, via, translator_of(via)) for d, m, via in self.quality.qe_jobs()]
        if self.quality.round_trip_languages():
            jobs += [
                (ROUND_TRIP, dataset, model, "", translator_of(""))
                for dataset in self.quality.round_trip_datasets()
                for model in generators
            ]
        for info in self.evaluators.evaluators():
            if info.calls_models:  # the translator behind the scores, as the results' `translator` column
                translated = info.reads == TRANSLATIONS or info.through_primary_translator
                jobs += [
                    (info.name, d, m, via, translator_of(via) if translated else "")
                    for d, m, via in self.evaluation.evaluation_jobs(info.name)
                ]
        return [
            {"path": path, "stage": stage, "dataset": dataset, "model": model, "translator": translator}
            for stage, dataset, model, via, translator in jobs
            for path in self.shards.shard_files(self.layout.usage_file(stage, dataset, model or None, via), stage)
        ]

    def usage_files(self) -> list[str]:
        return [job["path"] for job in self.usage_jobs()]

    def pricing(self) -> dict[str, dict[str, float]]:
        """The `pricing` section: USD per million tokens, by the model's name in usage.csv."""
        return {model: dict(prices) for model, prices in (self.config.get("pricing") or {}).items()}
