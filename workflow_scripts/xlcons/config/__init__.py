"""Validation of a workflow config against its schema and against the world.

The schema (config/schema/config.schema.yaml, completed from the registries) catches
misspelt keys and wrong types; the checks catch what a schema cannot: language codes that
are not in the registry, languages that must be translated but have no NLLB code, local
model paths that do not exist, and model sources that name both or neither of hf_id/path.
Every message names the offending key (as a dotted path) so a user can fix the config
without reading a traceback. Runs at DAG construction, before any job is scheduled.

One module per job:

- `schema`: the schema file completed from the registries (`load_schema`);
- `validation`: the schema's checks with defaults filled in (`validate_schema`, `ConfigError`);
- `translators`: `translators` completed from `translator`, the translators' and QE checks;
- `models`: a model source's folder name (`resource_name`) and its checks;
- `released`: released outputs as models (`add_released_model`);
- `checks`: everything else the schema cannot express (`check_semantics`), over every model
  the config uses (`iter_model_sources`);
- `key_order`: the canonical order of the keys (`canonical_order`).

The data sets resolved against their registry (`DatasetResolver`, which evaluator scores
which set) are the plan's, in xlcons.dataset_resolver; this package builds one and checks
the config with it. The names below are importable from `xlcons.config` as before.
"""

from __future__ import annotations

from pathlib import Path

from xlcons.config.checks import check_semantics, iter_model_sources
from xlcons.config.key_order import ORDERED_SECTIONS, canonical_order
from xlcons.config.models import resource_name
from xlcons.config.released import add_released_model, released_folders
from xlcons.config.schema import SCHEMA_PATH, load_schema
from xlcons.config.translators import (
    QE_MODEL,
    RUN_TRANSLATOR_KEYS,
    expand_translators,
    primary_translator_name,
    qe_model_source,
    translator_model_field,
    translator_model_key,
)
from xlcons.config.validation import ConfigError, validate_schema
from xlcons.config_files import load_yaml, yaml_problem
from xlcons.dataset_resolver import DatasetResolver, dataset_languages
from xlcons.languages import LanguageRegistry
from xlcons.translation.registry import LLM_TRANSLATOR

__all__ = [
    "LLM_TRANSLATOR",
    "ORDERED_SECTIONS",
    "QE_MODEL",
    "RUN_TRANSLATOR_KEYS",
    "SCHEMA_PATH",
    "ConfigError",
    "DatasetResolver",
    "add_released_model",
    "canonical_order",
    "check_semantics",
    "dataset_languages",
    "expand_translators",
    "iter_model_sources",
    "load_config",
    "load_schema",
    "primary_translator_name",
    "qe_model_source",
    "released_folders",
    "resolve_config",
    "resource_name",
    "translator_model_field",
    "translator_model_key",
    "validate_config",
    "validate_schema",
]


def resolve_config(
    config: dict, *, base_dir: Path | str = ".", registry: LanguageRegistry | None = None
) -> DatasetResolver:
    """Validate the config (filling its defaults), put its keys in canonical order and return
    its data sets resolved, for the plan."""
    validate_schema(config)
    if config.get("released_outputs") or config.get("released_model"):
        add_released_model(config, Path(base_dir))
        validate_schema(config)  # fills the added models' defaults
    expand_translators(config)
    canonical_order(config)
    datasets = DatasetResolver(config, registry or LanguageRegistry.load(), Path(base_dir))
    problems = check_semantics(config, datasets.registry, Path(base_dir), datasets)
    if problems:
        raise ConfigError("invalid config:\n  " + "\n  ".join(dict.fromkeys(problems)))
    return datasets


def validate_config(config: dict, *, base_dir: Path | str = ".", registry: LanguageRegistry | None = None) -> dict:
    """Schema validation with defaults, then the semantic checks; returns the filled config."""
    resolve_config(config, base_dir=base_dir, registry=registry)
    return config


def load_config(path: Path | str, *, base_dir: Path | str = ".") -> dict:
    """Read a YAML config file and validate it (used by tests and scripts outside Snakemake);
    a key given twice in one mapping is refused (xlcons.config_files)."""
    problem = yaml_problem(path)
    if problem:
        raise ConfigError(problem)
    config = load_yaml(path) or {}
    try:
        return validate_config(config, base_dir=base_dir)
    except ConfigError as error:
        raise ConfigError(f"{path}: {error}") from None
