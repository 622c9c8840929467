"""What a validated config needs: which models and data sets, fetched or local.

The Snakefile asks this module instead of reading the config itself, so the rules
stay declarative and the decisions (which evaluator needs which model, which data
set comes from where) are unit-tested in one place.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from xlcons.config import dataset_languages, iter_model_sources, resource_name, translated_datasets
from xlcons.data_sources import DATA_SOURCES
from xlcons.datasets import DATASETS
from xlcons.languages import LanguageRegistry

# Which released data set a configured prompt set is built from. The information
# prompts are committed with the project and need no download.
DATASET_SOURCES = {"multiq": "multiq", "makqa": "makqa", "empathy": "epitome"}


def _needs_weights(source: Mapping[str, Any]) -> bool:
    """An OpenAI-compatible endpoint serves the model; there is nothing to load locally."""
    return source.get("backend") != "openai" and bool(source.get("hf_id") or source.get("path"))


class Plan:
    def __init__(self, config: Mapping[str, Any], registry: LanguageRegistry | None = None):
        self.config = config
        self.registry = registry or LanguageRegistry.load()
        self.results = config["output"]["results_dir"]
        self.sources = dict(iter_model_sources(config))
        self.names = {key: resource_name(key, source) for key, source in self.sources.items() if source.get("hf_id") or source.get("path")}

    # -- data sets ---------------------------------------------------------------------
    def enabled_datasets(self) -> list[str]:
        return [name for name, spec in self.config["datasets"].items() if spec["enabled"]]

    def fetched_sources(self) -> list[str]:
        """Released data sets that enabled prompt sets need and no local path provides."""
        wanted = []
        for dataset in self.enabled_datasets():
            source = DATASET_SOURCES.get(dataset)
            if source and not self.config["datasets"][dataset].get("path") and source not in wanted:
                wanted.append(source)
        return wanted

    def fetched_dataset_pattern(self) -> str:
        return alternation(DATASET_SOURCES.values())

    def dataset_fetch_params(self, source: str) -> dict[str, Any]:
        spec = next((self.config["datasets"][d] for d, s in DATASET_SOURCES.items() if s == source), {})
        return {"source": source, "base_url": spec.get("source_url")}

    def unreachable_sources(self, resources: str) -> list[str]:
        """Warnings for data sets whose fetch job cannot succeed: no base URL, nothing pre-seeded.

        Reported while the DAG is built, so the user learns it before any job runs.
        """
        messages = []
        for source in self.fetched_sources():
            spec = DATA_SOURCES[source]
            seeded = Path(resources, "data", source, "MANIFEST.json").exists()
            if spec.needs_base_url and not self.dataset_fetch_params(source)["base_url"] and not seeded:
                messages.append(
                    f"data set '{source}' has no known public download location: set {spec.source_url_key} "
                    f"to the release's base URL, set datasets.{source}.path to a local copy, or put the files "
                    f"in {resources}/data/{source}/ (its fetch job fails otherwise)"
                )
        return messages

    def dataset_location(self, dataset: str, resources: str) -> list[str]:
        """The input a prompts job depends on: the local folder, the fetch manifest, or nothing
        (a set that ships with xlcons)."""
        path = self.config["datasets"][dataset].get("path")
        if path:
            return [path]
        source = DATASET_SOURCES.get(dataset)
        return [f"{resources}/data/{source}/MANIFEST.json"] if source else []

    # -- models ------------------------------------------------------------------------
    def required_model_keys(self) -> list[str]:
        """Config keys of the models the enabled stages load, in config order."""
        datasets = set(self.enabled_datasets())
        evaluators = self.config["evaluators"]
        translated = bool(datasets & set(translated_datasets(self.config)))
        needed = {key for key in self.sources if key.startswith("models.") and datasets}
        if translated:
            needed.add("translator.model")
        if "multiq" in datasets or (translated and self.config["translator"]["detect_response_language"]):
            needed.add("evaluators.language_id.model")
        if "multiq" in datasets:
            needed.add("evaluators.judge.llm")
        if "information" in datasets:
            needed.add("evaluators.information.llm")
        if "empathy" in datasets and evaluators["empathy"]["classifier"] == "encoder":
            needed.add("evaluators.empathy.encoder")
        if self.knowledge_datasets():
            needed.add("evaluators.knowledge.embedder")
        return [key for key in self.sources if key in needed and _needs_weights(self.sources[key])]

    def hub_models(self) -> dict[str, dict[str, Any]]:
        """Every configured model that comes from the Hub, by its folder name."""
        return {
            self.names[key]: {field: source.get(field) for field in ("hf_id", "revision", "hf_file")}
            for key, source in self.sources.items()
            if source.get("hf_id") and not source.get("path") and source.get("backend") != "openai"
        }

    def hub_model_pattern(self) -> str:
        return alternation(self.hub_models())

    def model_location(self, key: str, resources: str) -> str:
        source = self.sources[key]
        return source["path"] if source.get("path") else f"{resources}/models/{self.names[key]}/.xlcons-fetched.json"

    # -- prompts and generation ---------------------------------------------------------
    def generation_datasets(self) -> list[str]:
        """Enabled data sets whose prompts xlcons can build (the others arrive with their stages)."""
        return [name for name in self.enabled_datasets() if name in DATASETS]

    def languages(self, dataset: str) -> list[str]:
        return dataset_languages(dataset, self.config["datasets"][dataset], self.registry)

    def max_new_tokens(self, dataset: str) -> int:
        return self.config["datasets"][dataset]["max_new_tokens"] or DATASETS[dataset].max_new_tokens

    def dataset_folder(self, dataset: str, resources: str) -> str:
        """Where a data set's released files are: its configured path or the fetched copy."""
        path = self.config["datasets"][dataset].get("path")
        source = DATASET_SOURCES.get(dataset)
        return path or (f"{resources}/data/{source}" if source else None)

    def prompt_file(self, dataset: str, lang: str) -> str:
        return f"{self.results}/prompts/{dataset}/{lang}.parquet"

    def response_file(self, dataset: str, model: str, lang: str) -> str:
        return f"{self.results}/responses/{dataset}/{model}/{lang}.parquet"

    def generators(self) -> list[str]:
        return list(self.config["models"])

    def local_path(self, key: str, resources: str) -> str | None:
        """Where a model's files are on disk: its configured path, or its fetched folder (or the
        fetched file, for single-file models such as GlotLID); None for an API model."""
        source = self.sources[key]
        if source.get("path"):
            return source["path"]
        if not _needs_weights(source):
            return None
        folder = f"{resources}/models/{self.names[key]}"
        return f"{folder}/{source['hf_file']}" if source.get("hf_file") else folder

    def llm_spec(self, key: str, resources: str) -> dict[str, Any]:
        """An LLM's config plus `location`, what the generation backends need to run it."""
        return {**self.sources[key], "location": self.local_path(key, resources)}

    def llm_inputs(self, key: str, resources: str) -> list[str]:
        """The weights' marker or local path of an LLM (nothing for an API model)."""
        return [self.model_location(key, resources)] if _needs_weights(self.sources[key]) else []

    def generator_spec(self, model: str, resources: str) -> dict[str, Any]:
        """The model's config plus where its weights (or recorded responses) are on disk."""
        return self.llm_spec(f"models.{model}", resources)

    def generator_inputs(self, model: str, resources: str) -> list[str]:
        return self.llm_inputs(f"models.{model}", resources)

    def generator_gpus(self, model: str) -> int:
        return llm_gpus(self.config["models"][model])

    def generator_env(self, model: str) -> str:
        return generation_env(self.config["models"][model]["backend"])

    def tokenizer_models(self) -> list[str]:
        """Generators whose tokenizer is on disk (not API models, not recorded responses)."""
        return [name for name, spec in self.config["models"].items() if spec["backend"] in ("hf", "vllm")]

    def prompt_translated_datasets(self) -> list[str]:
        """Data sets written in one language whose prompts the translator carries into the others."""
        return [name for name in self.generation_datasets() if DATASETS[name].translated_from]

    def native_datasets(self) -> list[str]:
        """Data sets whose loader gives the prompts of every language itself."""
        return [name for name in self.generation_datasets() if not DATASETS[name].translated_from]

    def source_languages(self) -> list[str]:
        """The languages the translated prompt sets are written in."""
        return sorted({DATASETS[name].translated_from for name in self.prompt_translated_datasets()})

    def prompt_translation_languages(self, dataset: str) -> list[str]:
        source = DATASETS[dataset].translated_from
        return [lang for lang in self.languages(dataset) if lang != source]

    def prompt_review_file(self, dataset: str, lang: str) -> str:
        return f"{self.results}/prompts/{dataset}/review/{lang}.tsv"

    def round_trip_languages(self) -> list[str]:
        """Languages of the translationese check (English answers of the information set, en -> l -> en)."""
        if "information" not in self.generation_datasets():
            return []
        return list(self.config["evaluators"]["information"]["round_trip_languages"])

    def round_trip_file(self, dataset: str, model: str, lang: str) -> str:
        return f"{self.results}/round_trips/{dataset}/{model}/{lang}.parquet"

    def round_trip_targets(self) -> list[str]:
        langs = self.round_trip_languages()
        return [self.round_trip_file("information", model, lang) for model in self.generators() for lang in langs]

    def knowledge_datasets(self) -> list[str]:
        """Enabled data sets scored for knowledge consistency (xSC, and xAC/xTC where gold answers exist)."""
        wanted = self.config["evaluators"]["knowledge"]["datasets"]
        return [name for name in self.generation_datasets() if name in wanted]

    def knowledge_file(self, dataset: str, model: str, name: str) -> str:
        return f"{self.results}/evaluations/{dataset}/{model}/knowledge_{name}.parquet"

    def knowledge_targets(self) -> list[str]:
        """The per-model score tables of every knowledge data set (MAKQA's report comes on top)."""
        return self._per_model(self.knowledge_datasets(), lambda dataset, model: self.knowledge_file(dataset, model, "scores"))

    def translation_datasets(self) -> list[str]:
        """Data sets whose answers the workflow translates to English (and can build prompts for)."""
        return [name for name in self.generation_datasets() if name in self.config["translator"]["datasets"]]

    def translation_file(self, dataset: str, model: str, lang: str, kind: str = "translations") -> str:
        suffix = "" if kind == "translations" else f".{kind}"
        return f"{self.results}/translations/{dataset}/{model}/{lang}{suffix}.parquet"

    def translation_targets(self) -> list[str]:
        return self._per_model_and_language(self.translation_datasets(), self.translation_file)

    def ctranslate2_dir(self, resources: str) -> str | None:
        """Where the translator converted to CTranslate2 goes (ctranslate2 backend only)."""
        translator = self.config["translator"]
        if translator["backend"] != "ctranslate2":
            return None
        return f"{resources}/ctranslate2/{self.names['translator.model']}-{translator['compute_type']}"

    def generation_targets(self) -> list[str]:
        return self._per_model_and_language(self.generation_datasets(), self.response_file)

    def _per_model(self, datasets: list[str], path_of) -> list[str]:
        return [path_of(dataset, model) for dataset in datasets for model in self.generators()]

    def _per_model_and_language(self, datasets: list[str], path_of) -> list[str]:
        """`path_of(dataset, model, lang)` for every generator and every language of the data sets."""
        return [path_of(dataset, model, lang) for dataset in datasets for model in self.generators() for lang in self.languages(dataset)]

    # -- targets -----------------------------------------------------------------------
    def fetch_targets(self, resources: str) -> list[str]:
        models = [self.model_location(key, resources) for key in self.required_model_keys() if not self.sources[key].get("path")]
        data = [f"{resources}/data/{source}/MANIFEST.json" for source in self.fetched_sources()]
        return list(dict.fromkeys(models + data))


def llm_gpus(spec: Mapping[str, Any]) -> int:
    """GPUs a job running this LLM asks for: vLLM's tensor-parallel size; one for transformers unless on CPU."""
    if spec["backend"] == "vllm":
        return spec["vllm"]["tensor_parallel_size"]
    if spec["backend"] == "hf":
        return 0 if spec["hf"]["device"] == "cpu" else 1
    return 0


def generation_env(backend: str) -> str:
    """The env (envs/<name>.yaml) of a generation job: vLLM pins its own torch and transformers."""
    return "generate-vllm" if backend == "vllm" else "generate"


def alternation(names) -> str:
    """A wildcard constraint matching exactly these names (and nothing when there are none)."""
    names = sorted(set(names))
    return "|".join(re.escape(name) for name in names) if names else "(?!x)x"
