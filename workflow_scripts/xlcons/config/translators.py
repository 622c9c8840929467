"""The `translator` section, the `translators` beside it and the QE: their expansion and checks.

A `translators.<name>` entry is completed from `translator` (`expand_translators`); what a
backend's entry may hold (its model's key, its own options, the generation backends it runs
through) is its entry in xlcons.translation.registry, and the QE backends' defaults are
theirs in xlcons.translation.quality_backends.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator, Mapping
from typing import Any

from xlcons.config.models import resource_name
from xlcons.languages import LanguageRegistry
from xlcons.translation.quality_backends import DEFAULT_KEY, NO_QE, QE_BACKENDS
from xlcons.translation.registry import TRANSLATOR_BACKENDS

# Keys of `translator` that belong to the run, not to one translator: the data sets to
# translate, the quality estimation (run alike on every translator's output) and the name.
RUN_TRANSLATOR_KEYS = ("datasets", "qe", "name")
QE_MODEL = "translator.qe.model"


def _merged(base: Mapping[str, Any], override: Mapping[str, Any]) -> dict:
    merged = dict(copy.deepcopy(base))
    for key, value in override.items():
        merged[key] = (
            _merged(merged[key], value)
            if isinstance(value, Mapping) and isinstance(merged.get(key), Mapping)
            else copy.deepcopy(value)
        )
    return merged


def primary_translator_name(config: Mapping[str, Any]) -> str:
    """The `translator` section's name: its `name`, else its model's folder name."""
    section = config["translator"]
    return section.get("name") or resource_name("translator.model", section["model"])


def expand_translators(config: dict) -> None:
    """Complete each `translators` entry in place from `translator`: a key it does not set is
    the primary translator's (`degeneration` merged key by key). A translator that prompts a
    generation model has no `model` (its model is `llm`)."""
    shared = {key: value for key, value in config["translator"].items() if key not in RUN_TRANSLATOR_KEYS}
    for name, entry in list(config.get("translators", {}).items()):
        merged = _merged(shared, entry)
        if translator_model_field(merged) != "model":
            merged.pop("model", None)
        config["translators"][name] = merged


def translator_model_field(entry: Mapping[str, Any]) -> str:
    """The key of an extra translator's model in its entry: `model`, or an LLM translator's `llm`."""
    info = TRANSLATOR_BACKENDS.get(entry.get("backend"))
    return info.model_key if info is not None else "model"


def translator_model_key(name: str, entry: Mapping[str, Any]) -> str:
    """The config key of an extra translator's model (`translators.<name>.model` or `.llm`)."""
    return f"translators.{name}.{translator_model_field(entry)}"


def translator_model_sources(config: Mapping[str, Any]) -> Iterator[tuple[str, Mapping[str, Any]]]:
    """(config key, model source) of every translator's model and of the QE model."""
    yield "translator.model", config["translator"]["model"]
    for name, entry in config.get("translators", {}).items():
        field = translator_model_field(entry)
        if entry.get(field):
            yield f"translators.{name}.{field}", entry[field]
    qe = config["translator"].get("qe") or {}
    if qe.get("backend", NO_QE) != NO_QE:
        yield QE_MODEL, qe_model_source(qe)


def qe_model_source(section: Mapping[str, Any]) -> Mapping[str, Any]:
    """translator.qe.model, or its backend's default model (a Hub id)."""
    return section.get("model") or {
        "hf_id": QE_BACKENDS[section["backend"]].default_model,
        "revision": None,
        "hf_file": None,
        "path": None,
        "name": None,
    }


def check_translators(config: Mapping[str, Any]) -> Iterator[str]:
    """Each `translators` entry: a name of its own, its backend's model, and no key of another backend."""
    primary = primary_translator_name(config)
    for name, entry in config.get("translators", {}).items():
        if name == primary:
            yield (
                f"config key 'translators.{name}': the name is the primary "
                "translator's (translator.name or its model's folder); choose another"
            )
        backend = TRANSLATOR_BACKENDS[entry["backend"]]
        if backend.generation:
            model = entry.get(backend.model_key)
            if not model:
                yield (
                    f"config key 'translators.{name}.{backend.model_key}': backend "
                    f"{backend.name} needs the generation model that translates"
                )
            elif model["backend"] not in backend.generation_backends:
                yield (
                    f"config key 'translators.{name}.{backend.model_key}.backend': {model['backend']} does not "
                    f"run inside a translation job; use {' or '.join(backend.generation_backends)} (for vLLM: "
                    "serve the model with `vllm serve` and point backend: openai at it with api.base_url)"
                )
            elif (model.get("api") or {}).get("batch"):
                yield (
                    f"config key 'translators.{name}.{backend.model_key}.api.batch': the LLM translator asks "
                    "sentence by sentence and cannot wait for a batch; set it to false (api.batch is for "
                    "models, the judge and the information evaluator)"
                )
        for other in TRANSLATOR_BACKENDS.values():
            if other.generation and other.model_key != backend.model_key and entry.get(other.model_key):
                yield (
                    f"config key 'translators.{name}.{other.model_key}': "
                    f"only a translator with backend: {other.name} has one"
                )
            for option in other.options:
                if option not in backend.options and entry.get(option) is not None:
                    yield (
                        f"config key 'translators.{name}.{option}': only a "
                        f"translator with backend: {other.name} has a {option}"
                    )


def check_qe_thresholds(config: Mapping[str, Any], registry: LanguageRegistry) -> Iterator[str]:
    """translator.qe.threshold as a mapping: `default` and language codes of the registry, one
    key per language (the schema has checked that each value is a number or null)."""
    thresholds = (config["translator"].get("qe") or {}).get("threshold")
    if not isinstance(thresholds, Mapping):
        return
    seen: dict[str, str] = {}
    for key in thresholds:
        where = f"config key 'translator.qe.threshold.{key}'"
        if not isinstance(key, str):  # YAML reads a bare `no` (Norwegian), `on`, `yes` as a boolean
            yield f"{where}: a language code must be a string; quote it"
        elif key != DEFAULT_KEY:
            if key not in registry:
                yield (
                    f"{where}: '{key}' is not a language of the registry "
                    "(config/languages.tsv); use a language code or `default`"
                )
                continue
            canonical = registry[key].canonical
            if canonical in seen:
                yield (
                    f"{where}: the same language as 'translator.qe.threshold.{seen[canonical]}'; "
                    "give one threshold per language"
                )
            seen.setdefault(canonical, key)
