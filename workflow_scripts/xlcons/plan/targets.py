"""What a run asks for: the downloads (models and released data) and its final files."""

from __future__ import annotations

from xlcons.config.translators import QE_MODEL
from xlcons.evaluators.registry import LANGUAGE_ID_MODEL_KEY, TRANSLATIONS
from xlcons.fingerprint import random_weight_model
from xlcons.plan.data import DataPlan
from xlcons.plan.evaluation import EvaluationPlan
from xlcons.plan.layout import Layout
from xlcons.plan.models import ModelSources, released_source
from xlcons.plan.quality import QualityPlan
from xlcons.plan.scoring import EvaluatorPlan
from xlcons.plan.translation import PRIMARY_MODEL, TranslationPlan


class Targets:
    def __init__(
        self,
        models: ModelSources,
        data: DataPlan,
        layout: Layout,
        evaluators: EvaluatorPlan,
        translation: TranslationPlan,
        quality: QualityPlan,
        evaluation: EvaluationPlan,
    ):
        self.models, self.data, self.layout, self.evaluators = models, data, layout, evaluators
        self.translation, self.quality, self.evaluation = translation, quality, evaluation

    def missing_models(self) -> str | None:
        """Why the run would score nothing: data sets enabled but no model to answer them."""
        datasets = self.data.enabled_datasets()
        if datasets and not self.models.generators():
            return (
                f"config key 'models': no model to evaluate on {', '.join(datasets)}; add one under "
                f"models (or set released_model to one of Xing et al. 2024's models to score its released outputs)"
            )
        return None

    def required_model_keys(self) -> list[str]:
        """Config keys of the models the enabled stages load, in config order."""
        sources = self.models.sources
        needed = {key for key in sources if key.startswith("models.") and self.data.enabled_datasets()}
        if self.data.prompt_translated_datasets() or self.data.translation_datasets():
            needed.add(PRIMARY_MODEL)
            needed |= {self.translation.translator_key(name) for name in self.translation.extra_translators()}
            if self.data.translation_datasets() and self.translation.detects_response_language():
                needed.add(LANGUAGE_ID_MODEL_KEY)
            if self.quality.qe_datasets():  # the QE job checks the translations' language too
                needed |= {QE_MODEL, LANGUAGE_ID_MODEL_KEY}
        needed |= self.evaluators.model_keys()
        return [key for key in sources if key in needed and self.models.needs_weights(key)]

    def random_weight_models(self, resources: str) -> dict[str, str]:
        """The models the run loads that are offline models with random weights (`make
        offline-models`; xlcons.fingerprint.random_weight_model): config key -> the offline
        model's name, sorted by key (so that a reordered config leaves the results job's
        params). Their output is noise: the summary says so."""
        found = {key: random_weight_model(self.models.local_path(key, resources)) for key in self.required_model_keys()}
        return {key: name for key, name in sorted(found.items()) if name}

    def fetched_sources(self) -> list[str]:
        """Released files to download: the data sets that enabled prompt sets need and no local
        path provides, then the released outputs that models are scored on (`released`)."""
        wanted = self.data.dataset_sources_to_fetch()
        if self.data.enabled_datasets():
            wanted += [released_source(self.models.sources[f"models.{name}"]) for name in self.models.generators()]
        return [source for source in dict.fromkeys(wanted) if source]

    def fetch_targets(self, resources: str) -> list[str]:
        """The markers and manifests of every model and data set the enabled stages need."""
        models = [
            self.models.model_location(key, resources)
            for key in self.required_model_keys()
            if not self.models.sources[key].get("path")
        ]
        data = [f"{resources}/data/{source}/MANIFEST.json" for source in self.fetched_sources()]
        return list(dict.fromkeys(models + data))

    def _per_model_and_language(self, datasets: list[str], path_of) -> list[str]:
        """`path_of(dataset, model, lang)` for every generator and every language of the data sets."""
        return [
            path_of(dataset, model, lang)
            for dataset in datasets
            for model in self.models.generators()
            for lang in self.data.languages(dataset)
        ]

    def final_targets(self, resources: str) -> list[str]:
        """What the run asks for (rule all, reports aside): the downloads, every evaluation, and
        the answers and translations no evaluator reads (a set nothing scores still gets its
        answers). The rest comes in as inputs, so the DAG holds one link per consumer, not
        two: at 120 models over the built-in sets that is a sixth of its edges."""
        evaluators = self.evaluators.evaluators()
        scored = {dataset for info in evaluators for dataset in self.evaluators.evaluator_datasets(info.name)}
        read_translated = {
            d
            for info in evaluators
            if info.reads == TRANSLATIONS
            for d in self.evaluators.evaluator_datasets(info.name)
        }
        responses = self._per_model_and_language(
            [d for d in self.data.generation_datasets() if d not in scored], self.layout.response_file
        )
        translations = self._per_model_and_language(
            [d for d in self.data.translation_datasets() if d not in read_translated], self.layout.translation_file
        )
        return (
            self.fetch_targets(resources)
            + responses
            + translations
            + self.quality.all_qe_files()
            + self.evaluation.evaluation_targets()
        )
