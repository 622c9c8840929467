"""Validation of a workflow config against its schema and against the world.

The schema (config/schema/config.schema.yaml) catches misspelt keys and wrong types;
the checks here catch what a schema cannot: language codes that are not in the
registry, languages that must be translated but have no NLLB code, local model paths
that do not exist, and model sources that name both or neither of hf_id/path. Every
message names the offending key (as a dotted path) so a user can fix the config
without reading a traceback. Runs at DAG construction, before any job is scheduled.
"""

from __future__ import annotations

import copy
import difflib
import re
from collections.abc import Iterator, Mapping
from functools import lru_cache
from pathlib import Path
from typing import Any

import jsonschema
import yaml

from xlcons import REPO_ROOT
from xlcons.languages import LanguageRegistry, NotTranslatableError, UnknownLanguageError

SCHEMA_PATH = REPO_ROOT / "config" / "schema" / "config.schema.yaml"

# Data sets whose prompts exist in English only and are translated into every language
# (paper 000); their answers are translated back, as are those of `translator.datasets`.
TRANSLATED_DATASETS = ("information", "empathy")


def translated_datasets(config: Mapping[str, Any]) -> tuple[str, ...]:
    """Data sets whose languages all need an NLLB code (prompts or answers are translated)."""
    return tuple(dict.fromkeys(TRANSLATED_DATASETS + tuple(config["translator"]["datasets"])))


class ConfigError(ValueError):
    """An invalid config; the message lists every problem found, one per line."""


@lru_cache(maxsize=None)
def load_schema(path: Path = SCHEMA_PATH) -> dict:
    with open(path, encoding="utf-8") as handle:
        return yaml.safe_load(handle)


def _validator_filling_defaults(schema: dict):
    """A validator class that writes each property's default into the instance.

    Defaults live next to the property they belong to (also where the property's
    schema is a $ref), so an absent section is created from its own default and
    then filled from its children's defaults on the way down.
    """
    base = jsonschema.validators.validator_for(schema)
    validate_properties = base.VALIDATORS["properties"]

    def properties_with_defaults(validator, properties, instance, subschema):
        if validator.is_type(instance, "object"):
            for key, prop_schema in properties.items():
                if isinstance(prop_schema, dict) and "default" in prop_schema and key not in instance:
                    instance[key] = copy.deepcopy(prop_schema["default"])
        yield from validate_properties(validator, properties, instance, subschema)

    return jsonschema.validators.extend(base, {"properties": properties_with_defaults})


def _dotted(path) -> str:
    return ".".join(str(part) for part in path) or "<top level>"


def _allowed_keys(schema: dict, root: dict) -> list[str]:
    """Property names a (sub)schema allows, following allOf/$ref one level deep."""
    keys = list(schema.get("properties", {}))
    for part in schema.get("allOf", []):
        ref = part.get("$ref", "")
        if ref.startswith("#/$defs/"):
            keys += list(root["$defs"][ref.removeprefix("#/$defs/")].get("properties", {}))
    return keys


def _describe(error: jsonschema.ValidationError, schema: dict) -> Iterator[str]:
    where = _dotted(error.absolute_path)
    if error.validator in ("additionalProperties", "unevaluatedProperties"):
        allowed = _allowed_keys(error.schema, schema)
        patterns = [re.compile(p) for p in error.schema.get("patternProperties", {})]
        extra = [key for key in error.instance if key not in allowed and not any(p.search(key) for p in patterns)]
        for key in extra:
            hint = difflib.get_close_matches(key, allowed, n=1, cutoff=0.6)
            suggestion = f"; did you mean '{hint[0]}'?" if hint else f"; allowed keys: {', '.join(sorted(allowed))}"
            full = f"{where}.{key}" if error.absolute_path else key
            yield f"config key '{full}' is not allowed{suggestion}"
    elif error.validator == "propertyNames":
        yield f"config key '{where}': name {error.instance!r} must match {error.schema.get('pattern', error.schema)}"
    else:
        yield f"config key '{where}': {error.message}"


def validate_schema(config: dict, schema: dict | None = None) -> dict:
    """Fill defaults into ``config`` in place and return it, or raise ConfigError."""
    schema = schema or load_schema()
    validator = _validator_filling_defaults(schema)(schema)
    errors = sorted(validator.iter_errors(config), key=lambda e: [str(p) for p in e.absolute_path])
    messages = [line for error in errors for line in _describe(error, schema)]
    if messages:
        raise ConfigError("invalid config:\n  " + "\n  ".join(dict.fromkeys(messages)))
    return config


def iter_model_sources(config: Mapping[str, Any]) -> Iterator[tuple[str, Mapping[str, Any]]]:
    """(config key, model source) for every model the config uses, enabled or not."""
    for name, spec in config.get("models", {}).items():
        yield f"models.{name}", spec
    yield "translator.model", config["translator"]["model"]
    evaluators = config["evaluators"]
    yield "evaluators.language_id.model", evaluators["language_id"]["model"]
    yield "evaluators.judge.llm", evaluators["judge"]["llm"]
    yield "evaluators.information.llm", evaluators["information"]["llm"]
    yield "evaluators.empathy.encoder", evaluators["empathy"]["encoder"]
    if evaluators["knowledge"]["embedder"] is not None:
        yield "evaluators.knowledge.embedder", evaluators["knowledge"]["embedder"]


def resource_name(key: str, source: Mapping[str, Any]) -> str:
    """Folder name of a model under resources/models: the config name, else the Hub id's last part."""
    if source.get("name"):
        return source["name"]
    if key.startswith("models."):
        return key.removeprefix("models.")
    if source.get("hf_id"):
        return source["hf_id"].rstrip("/").split("/")[-1]
    return Path(source["path"]).name


def _check_model_source(key: str, source: Mapping[str, Any], base_dir: Path) -> Iterator[str]:
    has_hub, has_path = bool(source.get("hf_id")), bool(source.get("path"))
    remote = source.get("backend") == "openai"
    if has_hub and has_path:
        yield f"config key '{key}': give hf_id or path, not both"
    elif not (has_hub or has_path) and not (remote and source.get("api", {}).get("model")):
        yield f"config key '{key}': give hf_id (a Hugging Face id) or path (a local model)"
    if has_path:
        path = Path(source["path"])
        if not (path if path.is_absolute() else base_dir / path).exists():
            yield f"config key '{key}.path': local model path '{source['path']}' does not exist"
    if source.get("hf_file") and not has_hub:
        yield f"config key '{key}.hf_file': only meaningful together with hf_id"


def _check_languages(key: str, codes, registry: LanguageRegistry, translated: bool) -> Iterator[str]:
    if codes in (None, "all"):
        return
    for index, code in enumerate(codes):
        try:
            registry[code]
            if translated and code != "en":
                registry.nllb_code(code)
        except (UnknownLanguageError, NotTranslatableError) as error:
            yield f"config key '{key}[{index}]': {error}"


def dataset_languages(dataset: str, spec: Mapping[str, Any], registry: LanguageRegistry) -> list[str]:
    """The languages a data set runs in: its list, or what `all` means for it."""
    if spec["languages"] != "all":
        codes = list(spec["languages"])
        # The English answers are the reference every other language is compared with.
        return codes if dataset not in TRANSLATED_DATASETS or "en" in codes else ["en", *codes]
    from xlcons.datasets import DATASETS

    info = DATASETS.get(dataset)
    if info is not None and info.languages is not None:
        return list(info.languages)
    if dataset in TRANSLATED_DATASETS:
        return [code for code in registry.codes if code == "en" or registry[code].translatable]
    return list(registry.codes)


def _check_model_languages(name: str, spec: Mapping[str, Any], datasets: Mapping[str, Any], registry: LanguageRegistry) -> Iterator[str]:
    allowed = spec.get("languages")
    if allowed is None:
        return
    for dataset, dataset_spec in datasets.items():
        if not dataset_spec["enabled"]:
            continue
        excluded = [lang for lang in dataset_languages(dataset, dataset_spec, registry) if lang not in allowed]
        if excluded:
            yield (
                f"config key 'datasets.{dataset}.languages': model '{name}' excludes {excluded} "
                f"(models.{name}.languages); drop them from the data set or from the model's exclusions"
            )


def _is_recorded_responses(path: Path) -> bool:
    return path.is_file() or (path.is_dir() and any(path.glob("result_*.json")))


def add_released_model(config: dict) -> None:
    """Released outputs (`released_outputs`) join the models as a recorded-responses model."""
    if config.get("released_outputs"):
        config["models"][config["released_model"]] = {"backend": "file", "path": config["released_outputs"]}


def check_semantics(config: Mapping[str, Any], registry: LanguageRegistry, base_dir: Path) -> list[str]:
    """Everything the schema cannot express; returns the problems found (empty when valid)."""
    problems: list[str] = []
    owners: dict[str, tuple[str, tuple]] = {}
    for key, source in iter_model_sources(config):
        problems += _check_model_source(key, source, base_dir)
        if source.get("hf_id") or source.get("path"):
            name = resource_name(key, source)
            origin = tuple(source.get(field) for field in ("hf_id", "revision", "hf_file", "path"))
            first_key, first_origin = owners.setdefault(name, (key, origin))
            if first_origin != origin:
                problems.append(
                    f"config key '{key}': resources/models/{name} already holds '{first_key}', a different model; set a distinct 'name'"
                )
    for name, spec in config.get("models", {}).items():
        problems += _check_languages(f"models.{name}.training_languages", spec.get("training_languages"), registry, False)
        problems += _check_languages(f"models.{name}.languages", spec.get("languages"), registry, False)
        problems += _check_model_languages(name, spec, config["datasets"], registry)
        if spec["backend"] == "file" and spec.get("path") and not _is_recorded_responses(base_dir / spec["path"]):
            problems.append(
                f"config key 'models.{name}.path': backend file needs a responses file (CSV/JSONL/Parquet) "
                f"or a folder of released MAKQA outputs (result_<domain>.json); '{spec['path']}' is neither"
            )
    for index, pair in enumerate(config["output"]["comparisons"]):
        for name in pair:
            if name not in config.get("models", {}):
                problems.append(f"config key 'output.comparisons[{index}]': '{name}' is not a configured model")
    problems += _check_languages(
        "evaluators.information.round_trip_languages", config["evaluators"]["information"]["round_trip_languages"], registry, True
    )
    problems += _check_languages(
        "evaluators.language_id.unsupported_languages", config["evaluators"]["language_id"]["unsupported_languages"], registry, False
    )
    for dataset, spec in config["datasets"].items():
        problems += _check_languages(
            f"datasets.{dataset}.languages", spec["languages"], registry, dataset in translated_datasets(config) and spec["enabled"]
        )
        if spec.get("path"):
            path = Path(spec["path"])
            if not (path if path.is_absolute() else base_dir / path).is_dir():
                problems.append(f"config key 'datasets.{dataset}.path': folder '{spec['path']}' does not exist")
    return problems


def validate_config(config: dict, *, base_dir: Path | str = ".", registry: LanguageRegistry | None = None) -> dict:
    """Schema validation with defaults, then the semantic checks; returns the filled config."""
    validate_schema(config)
    if config.get("released_outputs"):
        add_released_model(config)
        validate_schema(config)  # fills the added model's defaults
    problems = check_semantics(config, registry or LanguageRegistry.load(), Path(base_dir))
    if problems:
        raise ConfigError("invalid config:\n  " + "\n  ".join(problems))
    return config


def load_config(path: Path | str, *, base_dir: Path | str = ".") -> dict:
    """Read a YAML config file and validate it (used by tests and scripts outside Snakemake)."""
    with open(path, encoding="utf-8") as handle:
        config = yaml.safe_load(handle) or {}
    try:
        return validate_config(config, base_dir=base_dir)
    except ConfigError as error:
        raise ConfigError(f"{path}: {error}") from None
