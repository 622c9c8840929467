"""Checks on the translations: quality estimation of every translated sentence (translator.qe)
and the round trips (en -> l -> en) that evaluators ask for."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from xlcons.config.translators import QE_MODEL
from xlcons.evaluators.registry import LANGUAGE_ID_MODEL_KEY, LANGUAGE_ID_SECTION
from xlcons.languages import LanguageRegistry
from xlcons.plan.data import DataPlan
from xlcons.plan.layout import Layout
from xlcons.plan.models import ModelSources
from xlcons.plan.scoring import EvaluatorPlan
from xlcons.plan.translation import TranslationPlan
from xlcons.translation.quality_backends import DEFAULT_KEY, NO_QE, QE_BACKENDS, qe_threshold


class QualityPlan:
    def __init__(
        self,
        config: Mapping[str, Any],
        registry: LanguageRegistry,
        models: ModelSources,
        data: DataPlan,
        layout: Layout,
        translation: TranslationPlan,
        evaluators: EvaluatorPlan,
    ):
        self.config, self.registry, self.models, self.data = config, registry, models, data
        self.layout, self.translation, self.evaluators = layout, translation, evaluators

    # -- quality estimation ----------------------------------------------------------------
    def qe_section(self) -> Mapping[str, Any]:
        return self.config["translator"]["qe"]

    def qe_datasets(self) -> list[str]:
        """Data sets whose translated sentences get a quality estimate (all translated sets, unless QE is off)."""
        return self.data.translation_datasets() if self.qe_section()["backend"] != NO_QE else []

    def qe_jobs(self) -> list[tuple[str, str, str]]:
        """(data set, model, via) of every QE job: each translated set, generator and translator."""
        return [
            (dataset, model, via)
            for dataset in self.qe_datasets()
            for model in self.models.generators()
            for via in self.translation.translator_vias(dataset)
        ]

    def all_qe_files(self) -> list[str]:
        """Every QE table of the run: each QE job's, one per language."""
        return [path for dataset, model, via in self.qe_jobs() for path in self.layout.qe_files(dataset, model, via)]

    def lid_label_scheme(self) -> str:
        """The label scheme of the language-ID model (what its labels mean), for every job that reads it."""
        return self.evaluators.config_section(LANGUAGE_ID_SECTION)["label_scheme"]

    def qe_fields(self) -> dict[str, Any]:
        """What changes a QE job's scores: backend, model (its content for a local path), batching,
        and the language-ID model of the off-target check (its label scheme, its content)."""
        section, sources = self.qe_section(), self.models.sources
        return {
            "backend": section["backend"],
            "batch_size": section["batch_size"],
            "gpus": section["gpus"],
            "model": dict(sources[QE_MODEL]),
            "content": self.models.content(QE_MODEL),
            "lid": dict(sources[LANGUAGE_ID_MODEL_KEY]),
            "lid_content": self.models.content(LANGUAGE_ID_MODEL_KEY),
            "label_scheme": self.lid_label_scheme(),
        }

    def qe_gpus(self) -> int:
        return self.qe_section()["gpus"]

    def qe_model_name(self) -> str:
        source = self.models.sources[QE_MODEL]
        return source.get("hf_id") or Path(source["path"]).name

    def qe_env(self, envs_dir: Path | str) -> str:
        return str(Path(envs_dir) / f"{QE_BACKENDS[self.qe_section()['backend']].env}.yaml")

    def qe_threshold(self) -> float | dict[str, float] | None:
        """The results stage's QE threshold: a number for every language, or, when
        translator.qe.threshold is a mapping, {"default": ..., <language>: ...} for each
        language of a QE'd data set that it lists (by its code or another code of the same
        language, `iw` for `he`); None without QE."""
        if not self.qe_datasets():
            return None
        section = self.qe_section()
        listed = section.get("threshold")
        if not isinstance(listed, Mapping):
            return qe_threshold(section)
        canonical = {self.registry[key].canonical: key for key in listed if key != DEFAULT_KEY and key in self.registry}
        thresholds = {DEFAULT_KEY: qe_threshold(section)}
        for lang in dict.fromkeys(lang for dataset in self.qe_datasets() for lang in self.data.languages(dataset)):
            key = lang if lang in listed else canonical.get(self.registry[lang].canonical)
            if key is not None and listed[key] is not None:
                thresholds[lang] = float(listed[key])
        return thresholds

    # -- round trips -----------------------------------------------------------------------
    def round_trip_languages(self) -> list[str]:
        """Languages of the round trips (the English answers en -> l -> en) the evaluators of the run ask for."""
        return list(dict.fromkeys(lang for languages in self.evaluators.round_trips().values() for lang in languages))

    def round_trip_datasets(self) -> list[str]:
        """The data sets scored by an evaluator that asks for round trips."""
        return list(
            dict.fromkeys(d for name in self.evaluators.round_trips() for d in self.evaluators.evaluator_datasets(name))
        )

    def round_trip_files(self, dataset: str, model: str) -> list[str]:
        return [self.layout.round_trip_file(dataset, model, lang) for lang in self.round_trip_languages()]
