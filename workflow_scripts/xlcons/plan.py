"""What a validated config asks the workflow to do: which jobs, which files, which models.

The Snakefile asks this module instead of reading the config itself, so the rules stay
declarative and every decision (which evaluator scores which data set, which models a
stage loads, where each file goes) is unit-tested in one place. It reads the three
registries (data sets, evaluators, generation backends) and restates none of their facts.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import cached_property
from pathlib import Path
from typing import Any

from xlcons.config import (
    LLM_TRANSLATOR,
    QE_MODEL,
    RUN_TRANSLATOR_KEYS,
    DatasetResolver,
    iter_model_sources,
    primary_translator_name,
    resource_name,
    translator_model_key,
)
from xlcons.data_sources import DATA_SOURCES, released_source_name, url_file_name
from xlcons.datasets import data_folder, dataset_options
from xlcons.evaluators.registry import EVALUATORS, QE_INPUT, RESPONSES_INPUT, TRANSLATIONS, EvaluatorInfo
from xlcons.fingerprint import local_content
from xlcons.generation.registry import backend_info, model_fields
from xlcons.languages import LanguageRegistry
from xlcons.translation.quality_backends import DEFAULT_KEY, QE_BACKENDS, QE_PATHS_INPUT, qe_threshold

LANGUAGE_ID = "evaluators.language_id.model"


def _needs_weights(source: Mapping[str, Any]) -> bool:
    """The model is a local file or folder the job reads (not a served endpoint)."""
    local = backend_info(source["backend"]).local_files if "backend" in source else True
    return local and bool(source.get("hf_id") or source.get("path") or source.get("released") or source.get("url"))


def _released_source(source: Mapping[str, Any]) -> str | None:
    """The data source of a model's fetched released outputs, if it is one."""
    return released_source_name(source["released"]) if source.get("released") else None


class LLMJob:
    """What a job that runs one LLM needs, for a role: a generator (`models.{model}`) or an
    evaluator's model (`evaluators.judge.llm`). Its methods are Snakemake input, params,
    conda and resources functions; the backend entry decides env, GPUs and memory."""

    def __init__(self, plan: Plan, key: str, resources: str, envs_dir: Path | str, dataset: str | None = None):
        self.plan, self.key, self.resources, self.envs_dir = plan, key, resources, Path(envs_dir)
        self.dataset = dataset  # a generator answering this data set gets its system prompt

    def _key(self, wildcards) -> str:
        return self.key.format(model=getattr(wildcards, "model", None))

    def _source(self, wildcards) -> Mapping[str, Any]:
        return self.plan.sources[self._key(wildcards)]

    def weights(self, wildcards) -> list[str]:
        return self.plan.model_inputs(self._key(wildcards), self.resources)

    def spec(self, wildcards) -> dict[str, Any]:
        spec = self.plan.llm_spec(self._key(wildcards), self.resources)
        if self.dataset and not spec["system_prompt"]:
            spec["system_prompt"] = self.plan.system_prompt(self.dataset)
        return spec

    def location(self, wildcards) -> str | None:
        return self.plan.local_path(self._key(wildcards), self.resources)

    def env(self, wildcards) -> str:
        return str(self.envs_dir / f"{backend_info(self._source(wildcards)['backend']).env}.yaml")

    def gpus(self, wildcards) -> int:
        source = self._source(wildcards)
        return backend_info(source["backend"]).gpus(source)

    def mem_mb(self, wildcards, attempt) -> int:
        """Grows with the retry attempt, so --retries recovers from out-of-memory kills."""
        return backend_info(self._source(wildcards)["backend"]).mem_mb * attempt


class Plan:
    def __init__(self, config: Mapping[str, Any], registry: LanguageRegistry | None = None, datasets: DatasetResolver | None = None):
        self.config = config
        self.registry = registry or (datasets.registry if datasets else LanguageRegistry.load())
        self.datasets = datasets or DatasetResolver(config, self.registry)
        self.results = config["output"]["results_dir"]
        self.sources = dict(iter_model_sources(config))
        self.names = {key: resource_name(key, source) for key, source in self.sources.items() if source.get("hf_id") or source.get("path") or source.get("url")}

    # -- data sets ---------------------------------------------------------------------
    def enabled_datasets(self) -> list[str]:
        return self.datasets.enabled()

    def info(self, dataset: str):
        return self.datasets.infos[dataset]

    def fetched_sources(self) -> list[str]:
        """Released files to download: the data sets that enabled prompt sets need and no local
        path provides, then the released outputs that models are scored on (`released`)."""
        wanted = []
        for dataset in self.enabled_datasets():
            source = self.info(dataset).source
            if source and not self.config["datasets"][dataset].get("path"):
                wanted.append(source)
        if self.enabled_datasets():
            wanted += [_released_source(self.sources[f"models.{name}"]) for name in self.generators()]
        return [source for source in dict.fromkeys(wanted) if source]

    def fetched_dataset_pattern(self) -> str:
        return alternation(DATA_SOURCES)

    def dataset_fetch_params(self, source: str) -> dict[str, Any]:
        """What a fetch job needs: the source, and the mirror its data set's config names, if any."""
        # The data set the source names, then any other that is read from the same source (the
        # Language Confusion Benchmark's two tasks share one repository).
        names = [DATA_SOURCES[source].dataset, *(name for name, info in self.datasets.infos.items() if info.source == source)]
        mirrors = [self.config["datasets"].get(name, {}).get("source_url") for name in dict.fromkeys(names)]
        return {"source": source, "mirror": next((mirror for mirror in mirrors if mirror), None)}

    def missing_models(self) -> str | None:
        """Why the run would score nothing: data sets enabled but no model to answer them."""
        if self.enabled_datasets() and not self.generators():
            return (f"config key 'models': no model to evaluate on {', '.join(self.enabled_datasets())}; add one under "
                    f"models (or set released_model to one of paper 001's models to score its released outputs)")
        return None

    def notes(self) -> list[str]:
        """What the user should know about their own prompt files (ids missing in some languages)."""
        users = [name for name in self.enabled_datasets() if self.info(name).user]
        for name in users:
            self.datasets.user_rows(name)  # reads the file once, collecting its notes
        return [note for name in users for note in self.datasets.user_notes[name]]

    def dataset_location(self, dataset: str, resources: str) -> list[str]:
        """The inputs a prompts job depends on: a user's prompt file; the released files in a
        local folder (the files, not the folder, whose time does not change when a file in it is
        edited); the fetch manifest; or nothing (a set that ships with xlcons)."""
        path = self.config["datasets"][dataset].get("path")
        source = self.info(dataset).source
        if path and source and Path(path).is_dir():
            files = [str(Path(path) / f.relpath) for f in DATA_SOURCES[source].files if (Path(path) / f.relpath).is_file()]
            return files or [path]  # a folder without them: the loader names what is missing
        if path:
            return [path]
        return [f"{resources}/data/{source}/MANIFEST.json"] if source else []

    def dataset_folder(self, dataset: str, resources: str) -> str | None:
        """Where a data set's files are: its configured path or the fetched copy."""
        return data_folder(self.info(dataset), self.config["datasets"][dataset], resources)

    def loader(self, dataset: str) -> str:
        return self.info(dataset).module

    def loader_options(self, dataset: str) -> dict[str, Any]:
        options = dataset_options(self.info(dataset), self.config["datasets"][dataset])
        if self.info(dataset).run_languages_option:
            options[self.info(dataset).run_languages_option] = self.languages(dataset)
        return options

    def item_selection(self, dataset: str) -> dict[str, Any]:
        return self.config["datasets"][dataset]["items"]

    # -- models ------------------------------------------------------------------------
    def evaluators(self) -> list[EvaluatorInfo]:
        """The evaluators that score at least one enabled data set."""
        return [info for info in EVALUATORS.values() if self.datasets.scored_by(info)]

    def rule_files(self) -> list[str]:
        """Every evaluator's rule file (rules/<file>), each once, in registry order."""
        return list(dict.fromkeys(info.rule_file for info in EVALUATORS.values()))

    def evaluator_datasets(self, evaluator: str) -> list[str]:
        return self.datasets.scored_by(EVALUATORS[evaluator])

    def evaluator_model_keys(self, evaluator: str) -> tuple[str, ...]:
        """The config keys of the models (and model-like files) an evaluator's jobs read, as its options decide."""
        info = EVALUATORS[evaluator]
        return info.model_keys(self.config["evaluators"][info.section])

    def required_model_keys(self) -> list[str]:
        """Config keys of the models the enabled stages load, in config order."""
        datasets = self.enabled_datasets()
        needed = {key for key in self.sources if key.startswith("models.") and datasets}
        if self.prompt_translated_datasets() or self.translation_datasets():
            needed.add("translator.model")
            needed |= {self.translator_key(name) for name in self.extra_translators()}
            if self.translation_datasets() and self.config["translator"]["detect_response_language"]:
                needed.add(LANGUAGE_ID)
            if self.qe_datasets():  # the QE job checks the translations' language too
                needed |= {QE_MODEL, LANGUAGE_ID}
        for evaluator in self.evaluators():
            needed |= set(evaluator.model_keys(self.config["evaluators"][evaluator.section]))
        return [key for key in self.sources if key in needed and _needs_weights(self.sources[key])]

    def hub_models(self) -> dict[str, dict[str, Any]]:
        """Every configured model that comes from the Hub, by its folder name."""
        return {
            self.names[key]: {field: source.get(field) for field in ("hf_id", "revision", "hf_file", "url", "sha256")}
            for key, source in self.sources.items()
            if (source.get("hf_id") or source.get("url")) and not source.get("path") and _needs_weights(source)
        }

    def hub_model_pattern(self) -> str:
        return alternation(self.hub_models())

    def model_location(self, key: str, resources: str) -> str:
        source = self.sources[key]
        if source.get("path"):
            return source["path"]
        if source.get("released"):
            return f"{resources}/data/{_released_source(source)}/MANIFEST.json"
        return f"{resources}/models/{self.names[key]}/.xlcons-fetched.json"

    def local_path(self, key: str, resources: str) -> str | None:
        """Where a model's files are on disk: its configured path, or its fetched folder (or the
        fetched file, for single-file models such as GlotLID); None for an API model."""
        source = self.sources.get(key)
        if source is None:
            return None
        if source.get("path"):
            return source["path"]
        if not _needs_weights(source):
            return None
        if source.get("released"):
            return f"{resources}/data/{_released_source(source)}"
        folder = f"{resources}/models/{self.names[key]}"
        if source.get("url"):
            return f"{folder}/{url_file_name(source['url'])}"
        return f"{folder}/{source['hf_file']}" if source.get("hf_file") else folder

    def model_inputs(self, key: str, resources: str) -> list[str]:
        """The marker or local path of a model a job loads (nothing for an API model, or none configured)."""
        source = self.sources.get(key)
        return [self.model_location(key, resources)] if source is not None and _needs_weights(source) else []

    def llm_spec(self, key: str, resources: str) -> dict[str, Any]:
        """What the generation backends need to run an LLM: the fields that change its answers,
        plus `location` (reporting-only keys stay out, so editing them reruns nothing) and, for
        a local `path`, the digest of its files: a job's params change, and Snakemake reruns
        it, when the checkpoint (or the responses file) there is replaced or retrained."""
        return {**model_fields(self.sources[key]), "location": self.local_path(key, resources), "content": self.content(key)}

    def content(self, key: str) -> str | None:
        """The digest of a local `path` model's files (xlcons.fingerprint); None for a Hub,
        served or fetched model, a model the config does not have, or a path that is not
        there (validation names it). In a job's params: a checkpoint replaced or retrained in
        place reruns the job, a moved one does not."""
        return local_content(self.sources.get(key, {}).get("path"))

    def llm_job(self, key: str, resources: str, envs_dir: Path | str, dataset: str | None = None) -> LLMJob:
        """The job functions of an LLM role; `dataset` for a generator, whose system prompt the
        data set gives when the model has none of its own."""
        return LLMJob(self, key, resources, envs_dir, dataset)

    def max_failed_share(self) -> float:
        """Share of a generation or judge job's requests that may fail with the job still done."""
        return self.config["generation"]["max_failed_share"]

    def generators(self) -> list[str]:
        return list(self.config["models"])

    def tokenizer_models(self) -> list[str]:
        """Generators whose tokenizer is on disk (not API models, not recorded responses)."""
        return [name for name, spec in self.config["models"].items() if backend_info(spec["backend"]).has_tokenizer]

    # -- prompts and generation ---------------------------------------------------------
    def generation_datasets(self) -> list[str]:
        return self.enabled_datasets()

    def languages(self, dataset: str) -> list[str]:
        return self.datasets.languages(dataset)

    def max_new_tokens(self, dataset: str) -> int:
        return self.config["datasets"][dataset]["max_new_tokens"] or self.info(dataset).max_new_tokens

    def system_prompt(self, dataset: str) -> str | None:
        return self.config["datasets"][dataset].get("system_prompt")

    def prompt_file(self, dataset: str, lang: str) -> str:
        return f"{self.results}/prompts/{dataset}/{lang}.parquet"

    def prompt_files(self, dataset: str) -> list[str]:
        return [self.prompt_file(dataset, lang) for lang in self.languages(dataset)]

    def prompt_table(self, dataset: str) -> str:
        """Every language's prompts in one table, what the (data set, model) jobs read: one
        input each instead of one per language (the DAG stays small as models are added)."""
        return f"{self.results}/prompts/{dataset}.parquet"

    def response_file(self, dataset: str, model: str, lang: str) -> str:
        return f"{self.results}/responses/{dataset}/{model}/{lang}.parquet"

    def response_files(self, dataset: str, model: str, *, english: bool = True) -> list[str]:
        return [self.response_file(dataset, model, lang) for lang in self.languages(dataset) if english or lang != "en"]

    def response_table(self, dataset: str, model: str) -> str:
        """Every language's answers of one model in one table, written by the generation job
        beside the per-language files: what the evaluators read (one input each)."""
        return f"{self.results}/responses/{dataset}/{model}.parquet"

    def english_question_files(self, dataset: str) -> list[str]:
        """What the judge reads for the English question: the English prompts, or, for a set
        without English rows, every language's prompts (their `question_en` column)."""
        if "en" in self.languages(dataset) or not self.info(dataset).user:
            return [self.prompt_file(dataset, "en")]
        return [self.prompt_table(dataset)]

    def cache_file(self, stage: str, dataset: str, model: str | None = None, via: str = "") -> str:
        """A job's own item cache: not an output, so it survives reruns (and a killed job resumes)."""
        cache = f"{self.results}/{via}cache/{stage}/{dataset}"
        return f"{cache}/{model}.jsonl" if model else f"{cache}.jsonl"

    def legacy_caches(self) -> list[tuple[str, str]]:
        """(old, new) paths of the item caches that lived under a path without the data set
        before every evaluator could score any data set (information, translationese, round
        trips: paper 000's information set). Moved once, so no LLM call is made again."""
        moves = []
        for stage, evaluator in (("information", "information"), ("translationese", "translationese"), ("round_trip", "translationese")):
            if "information" in self.evaluator_datasets(evaluator):
                for model in self.generators():
                    moves.append((f"{self.results}/cache/{stage}/{model}.jsonl", self.cache_file(stage, "information", model)))
        return moves

    def prompt_translated_datasets(self) -> list[str]:
        """Data sets written in one language whose prompts the translator carries into the others."""
        return [name for name in self.enabled_datasets() if self.info(name).translated_from]

    def native_datasets(self) -> list[str]:
        """Data sets whose loader gives the prompts of every language itself."""
        return [name for name in self.enabled_datasets() if not self.info(name).translated_from]

    def source_languages(self) -> list[str]:
        """The languages the translated prompt sets are written in."""
        return sorted({self.info(name).translated_from for name in self.prompt_translated_datasets()})

    def prompt_translation_languages(self, dataset: str) -> list[str]:
        source = self.info(dataset).translated_from
        return [lang for lang in self.languages(dataset) if lang != source]

    def prompt_review_file(self, dataset: str, lang: str) -> str:
        return f"{self.results}/prompts/{dataset}/review/{lang}.tsv"

    # -- translation -------------------------------------------------------------------
    def translation_datasets(self) -> list[str]:
        """Data sets whose answers the workflow translates to English."""
        return self.datasets.translated_answers()

    # -- translators: `translator` (the primary) and the extra ones under `translators` --------
    # An extra translator's files mirror the primary's under results/by-translator/<name>/
    # (its `via`); the primary's `via` is empty, so a run with one translator keeps its paths.
    def translators(self) -> list[str]:
        """Every translator of the answers that the run uses, by name: the primary first."""
        return [self.primary_translator(), *self.extra_translators()]

    def primary_translator(self) -> str:
        return primary_translator_name(self.config)

    def extra_translators(self) -> list[str]:
        """The `translators` entries, when some data set's translations are read by an evaluator."""
        return list(self.config.get("translators", {})) if self.read_translated_datasets() else []

    def via(self, translator: str) -> str:
        """The path prefix of a translator's files under the results folder ("" for the primary)."""
        return "" if self._is_primary(translator) else f"by-translator/{translator}/"

    def vias(self) -> list[str]:
        return [self.via(name) for name in self.translators()]

    def translator_of(self, via: str) -> str:
        """The translator whose files lie under `via` (a rule's `{via}` wildcard)."""
        return via.removeprefix("by-translator/").removesuffix("/") or self.primary_translator()

    def _is_primary(self, translator: str | None) -> bool:
        return translator is None or translator == self.primary_translator()

    def translator_section(self, translator: str | None = None) -> Mapping[str, Any]:
        if self._is_primary(translator):
            return self.config["translator"]
        return self.config["translators"][translator]

    def translator_key(self, translator: str | None = None) -> str:
        """The config key of a translator's model (an LLM translator's `llm`)."""
        if self._is_primary(translator):
            return "translator.model"
        return translator_model_key(translator, self.config["translators"][translator])

    def is_llm_translator(self, translator: str | None) -> bool:
        return self.translator_section(translator)["backend"] == LLM_TRANSLATOR

    def translator_gpus(self, translator: str | None = None) -> int:
        """GPUs of a translation job: the section's `gpus`, an LLM translator's its backend's."""
        if self.is_llm_translator(translator):
            source = self.sources[self.translator_key(translator)]
            return backend_info(source["backend"]).gpus(source)
        return self.translator_section(translator)["gpus"]

    def read_translated_datasets(self) -> list[str]:
        """Data sets whose translations an evaluator reads (those every translator translates)."""
        return list(self._read_translated)

    @cached_property
    def _read_translated(self) -> tuple[str, ...]:
        # Asked for every (data set, model) file path: computed once (the config is fixed).
        read = {d for info in self.evaluators() if info.reads == TRANSLATIONS for d in self.datasets.scored_by(info)}
        return tuple(name for name in self.translation_datasets() if name in read)

    def translator_vias(self, dataset: str) -> list[str]:
        """The translators of a data set's answers, as vias: the primary's for every translated
        set, the extra ones' for the sets an evaluator reads translations of."""
        return self.vias() if dataset in self.read_translated_datasets() else [""]

    def translator_fields(self, translator: str | None = None, resources: str | None = None) -> dict[str, Any]:
        """The translator section a translation job reads: without the list of data sets, so
        adding a data set to translate reruns nothing already translated, without the QE
        section (its own job) and the name (a label). An LLM translator's `llm` is its model's
        params, as an evaluator LLM's."""
        section = self.translator_section(translator)
        # The default family is left out: a translation job from before families existed is
        # not rerun for a key that changes nothing.
        fields = {key: value for key, value in section.items() if key not in RUN_TRANSLATOR_KEYS and (key, value) != ("family", "nllb")}
        key = self.translator_key(translator)
        if self.is_llm_translator(translator):
            return fields | {"llm": self.llm_spec(key, resources or "resources")}
        return fields | {"content": self.content(key)}

    def translation_file(self, dataset: str, model: str, lang: str, kind: str = "translations", via: str = "") -> str:
        suffix = "" if kind == "translations" else f".{kind}"
        return f"{self.results}/{via}translations/{dataset}/{model}/{lang}{suffix}.parquet"

    def translation_files(self, dataset: str, model: str, kind: str = "translations", *, english: bool = True, via: str = "") -> list[str]:
        return [self.translation_file(dataset, model, lang, kind, via) for lang in self.languages(dataset) if english or lang != "en"]

    # -- quality estimation of the translations -------------------------------------------
    def qe_section(self) -> Mapping[str, Any]:
        return self.config["translator"]["qe"]

    def qe_datasets(self) -> list[str]:
        """Data sets whose translated sentences get a quality estimate (all translated sets, unless QE is off)."""
        return self.translation_datasets() if self.qe_section()["backend"] != "none" else []

    def qe_files(self, dataset: str, model: str, via: str = "") -> list[str]:
        return self.translation_files(dataset, model, "qe", via=via)

    def qe_jobs(self) -> list[tuple[str, str, str]]:
        """(data set, model, via) of every QE job: each translated set, generator and translator."""
        return [(dataset, model, via) for dataset in self.qe_datasets() for model in self.generators() for via in self.translator_vias(dataset)]

    def all_qe_files(self) -> list[str]:
        """Every QE table of the run: each QE job's, one per language."""
        return [path for dataset, model, via in self.qe_jobs() for path in self.qe_files(dataset, model, via)]

    def qe_fields(self) -> dict[str, Any]:
        """What changes a QE job's scores: backend, model (its content for a local path), batching,
        and the language-ID model of the off-target check (its label scheme, its content)."""
        section = self.qe_section()
        return {"backend": section["backend"], "batch_size": section["batch_size"], "gpus": section["gpus"],
                "model": dict(self.sources[QE_MODEL]), "content": self.content(QE_MODEL),
                "lid": dict(self.sources[LANGUAGE_ID]), "lid_content": self.content(LANGUAGE_ID),
                "label_scheme": self.config["evaluators"]["language_id"]["label_scheme"]}

    def qe_model_name(self) -> str:
        source = self.sources[QE_MODEL]
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
        for lang in dict.fromkeys(lang for dataset in self.qe_datasets() for lang in self.languages(dataset)):
            key = lang if lang in listed else canonical.get(self.registry[lang].canonical)
            if key is not None and listed[key] is not None:
                thresholds[lang] = float(listed[key])
        return thresholds

    def round_trip_languages(self) -> list[str]:
        """Languages of the translationese check (the English answers en -> l -> en)."""
        return list(self.config["evaluators"]["information"]["round_trip_languages"]) if self.round_trip_datasets() else []

    def round_trip_datasets(self) -> list[str]:
        return self.evaluator_datasets("translationese")

    def round_trip_file(self, dataset: str, model: str, lang: str) -> str:
        return f"{self.results}/round_trips/{dataset}/{model}/{lang}.parquet"

    def round_trip_files(self, dataset: str, model: str) -> list[str]:
        return [self.round_trip_file(dataset, model, lang) for lang in self.round_trip_languages()]

    def ctranslate2_dir(self, resources: str, translator: str | None = None) -> str | None:
        """Where a translator converted to CTranslate2 goes (ctranslate2 backend only): one
        folder per checkpoint and compute type, shared by translators that agree on both."""
        section = self.translator_section(translator)
        if section["backend"] != "ctranslate2":
            return None
        return f"{resources}/ctranslate2/{self.names[self.translator_key(translator)]}-{section['compute_type']}"

    def ctranslate2_conversions(self, resources: str) -> dict[str, str]:
        """Each CTranslate2 folder of the run, with the translator that converts it (the first that uses it)."""
        conversions: dict[str, str] = {}
        for translator in self.translators():
            folder = self.ctranslate2_dir(resources, translator)
            if folder:
                conversions.setdefault(folder, translator)
        return conversions

    def translator_weights(self, resources: str, translator: str | None = None) -> list[str]:
        """What a translation job waits for: the converted model (CTranslate2), else the
        checkpoint's marker or path (an LLM translator: its model's, none for an API model)."""
        converted = self.ctranslate2_dir(resources, translator)
        return [converted] if converted else self.model_inputs(self.translator_key(translator), resources)

    # -- evaluation --------------------------------------------------------------------
    def evaluation_file(self, dataset: str, model: str, output: str, via: str = "") -> str:
        return f"{self.results}/{via}evaluations/{dataset}/{model}/{output}.parquet"

    def evaluator_vias(self, evaluator: str, dataset: str) -> list[str]:
        """The translators an evaluator scores a data set's answers through: each one for an
        evaluator that reads translations, else none (the primary's plain paths)."""
        return self.translator_vias(dataset) if EVALUATORS[evaluator].reads == TRANSLATIONS else [""]

    def evaluated_models(self, evaluator: str) -> list[str]:
        return self.tokenizer_models() if EVALUATORS[evaluator].tokenizer_models_only else self.generators()

    def evaluation_files(self, evaluator: str, output: str | None = None) -> list[str]:
        """One output (by default the target) of an evaluator, for every data set it scores and every model."""
        output = output or EVALUATORS[evaluator].target
        return [self.evaluation_file(d, m, output, via) for d, m, via in self.evaluation_jobs(evaluator)]

    def evaluation_jobs(self, evaluator: str) -> list[tuple[str, str, str]]:
        """(data set, model, via) of every job of an evaluator."""
        return [(d, m, via) for d in self.evaluator_datasets(evaluator) for m in self.evaluated_models(evaluator)
                for via in self.evaluator_vias(evaluator, d)]

    def file_translators(self) -> dict[str, str]:
        """The translator behind each per-item file of an evaluator that reads translations (or
        round trips), and behind each QE table (the results' `translator` column)."""
        files: dict[str, str] = {}
        for info in self.evaluators():
            if info.reads == TRANSLATIONS or info.through_primary_translator:
                for dataset, model, via in self.evaluation_jobs(info.name):
                    files |= {self.evaluation_file(dataset, model, source.output, via): self.translator_of(via) for source in info.results}
        for dataset, model, via in self.qe_jobs():
            files |= dict.fromkeys(self.qe_files(dataset, model, via), self.translator_of(via))
            files |= dict.fromkeys(self.translation_files(dataset, model, via=via), self.translator_of(via))
        return files

    def evaluation_targets(self) -> list[str]:
        return [path for info in self.evaluators() for path in self.evaluation_files(info.name)]

    def results_inputs(self) -> dict[str, list[str]]:
        """Every file the results stage reads, by registered output (see xlcons.reports.aggregate)."""
        inputs: dict[str, list[str]] = {}
        scored: dict[tuple[str, str], None] = {}
        for info in self.evaluators():
            for source in info.results:
                files = self.evaluation_files(info.name, source.output)
                if files:
                    inputs[source.output] = files
                    if not source.corpus:
                        scored |= dict.fromkeys((d, m) for d in self.evaluator_datasets(info.name) for m in self.evaluated_models(info.name))
        if scored:  # their failed requests: the scores resting on them are not the model's
            inputs[RESPONSES_INPUT] = [self.response_table(dataset, model) for dataset, model in scored]
        qe = self.all_qe_files()
        if qe:  # the quality of each item's translation: QE means and the scores on passing items
            inputs[QE_INPUT] = qe
            # and the translation path of each answer: an untranslatable one has no QE, and fails it
            inputs[QE_PATHS_INPUT] = [path for dataset, model, via in self.qe_jobs() for path in self.translation_files(dataset, model, via=via)]
        return inputs

    # -- targets -----------------------------------------------------------------------
    def _per_model_and_language(self, datasets: list[str], path_of) -> list[str]:
        """`path_of(dataset, model, lang)` for every generator and every language of the data sets."""
        return [path_of(dataset, model, lang) for dataset in datasets for model in self.generators() for lang in self.languages(dataset)]

    def final_targets(self, resources: str) -> list[str]:
        """What the run asks for (rule all, reports aside): the downloads, every evaluation, and
        the answers and translations no evaluator reads (a set nothing scores still gets its
        answers). The rest comes in as inputs, so the DAG holds one link per consumer, not
        two: at 120 models over the built-in sets that is a sixth of its edges."""
        scored = {dataset for info in self.evaluators() for dataset in self.datasets.scored_by(info)}
        read_translated = {d for info in self.evaluators() if info.reads == TRANSLATIONS for d in self.datasets.scored_by(info)}
        responses = self._per_model_and_language([d for d in self.generation_datasets() if d not in scored], self.response_file)
        translations = self._per_model_and_language(
            [d for d in self.translation_datasets() if d not in read_translated], self.translation_file
        )
        qe = self.all_qe_files()
        return self.fetch_targets(resources) + responses + translations + qe + self.evaluation_targets()

    def fetch_targets(self, resources: str) -> list[str]:
        models = [self.model_location(key, resources) for key in self.required_model_keys() if not self.sources[key].get("path")]
        data = [f"{resources}/data/{source}/MANIFEST.json" for source in self.fetched_sources()]
        return list(dict.fromkeys(models + data))


def via_alternation(vias) -> str:
    """A wildcard constraint matching exactly these path prefixes, the empty one included (a
    bare empty pattern would read as no constraint at all)."""
    return "(?:" + "|".join(re.escape(via) for via in sorted(set(vias))) + ")"


def alternation(names) -> str:
    """A wildcard constraint matching exactly these names (and nothing when there are none)."""
    names = sorted(set(names))
    return "|".join(re.escape(name) for name in names) if names else "(?!x)x"
